package runner

import (
	"bytes"
	"testing"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		secrets []string
		in      []string // written in these pieces
		want    string
	}{
		{[]string{"hunter2"}, []string{"pass: hunter2\r\n"}, "pass: ******\r\n"},
		{[]string{"hunter2"}, []string{"pass: hun", "ter2 ok"}, "pass: ****** ok"},
		{[]string{"hunter2"}, []string{"hunt", "ing"}, "hunting"},
		// A one-letter secret is masked only where it stands alone, else it
		// would be spelt out by the masks.
		{[]string{"x"}, []string{"/tmp/k already exists.\r\ngot: x\r\n"}, "/tmp/k already exists.\r\ngot: ******\r\n"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		r := NewRedactor(&out, c.secrets)
		for _, p := range c.in {
			if _, err := r.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("%q through %q: got %q, want %q", c.in, c.secrets, out.String(), c.want)
		}
	}
	if got := NewRedactor(nil, []string{"pin"}).String("pin: pin, spinning"); got != "******: ******, spinning" {
		t.Errorf("String = %q", got)
	}
}
