package redact

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		secrets []string
		in      []string // written in these pieces
		want    string
	}{
		{"plain", []string{"hunter2"}, []string{"pass: hunter2\r\n"}, "pass: ******\r\n"},
		{"split", []string{"hunter2"}, []string{"pass: hun", "ter2 ok"}, "pass: ****** ok"},
		{"not a secret", []string{"hunter2"}, []string{"hunt", "ing"}, "hunting"},
		// A one-letter secret is masked only where it stands alone, else it
		// would be spelt out by the masks.
		{"one letter", []string{"x"}, []string{"/tmp/k already exists.\r\ngot: x\r\n"}, "/tmp/k already exists.\r\ngot: ******\r\n"},
		{"one letter between blanks", []string{"x"}, []string{"a x b, axb"}, "a ****** b, axb"},
		// A shell that colours what is typed draws a colour per character.
		{"a colour per character", []string{"hunter2"},
			[]string{"\x1b[31mh\x1b[0m\x1b[31mu\x1b[0m\x1b[31mn\x1b[0m\x1b[31mt\x1b[0m\x1b[31me\x1b[0m\x1b[31mr\x1b[0m\x1b[31m2\x1b[0m ok"},
			"\x1b[31m******\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m\x1b[31m\x1b[0m ok"},
		{"a colour split across writes", []string{"hunter2"}, []string{"\x1b[31mhun\x1b[", "0mter2\x1b[0m"}, "\x1b[31m******\x1b[0m\x1b[0m"},
		// The terminal echoes a multi-line secret's "\n" as "\r\n".
		{"multi-line echo", []string{"line one\nline two"}, []string{"line one\r\n", "line two\r\n$ "}, "******\r\n\r\n$ "},
		{"escaped for JSON", []string{`p"a\ss`}, []string{`{"pw":"p\"a\\ss"}`}, `{"pw":"******"}`},
		{"escaped for HTML", []string{`p"a<ss`}, []string{`<b>p&#34;a&lt;ss</b>`}, `<b>******</b>`},
		// Cut short by the end of the output: a long start is masked.
		{"a long start at the end", []string{"correct-horse-battery"}, []string{"said correct-hor"}, "said ******"},
		{"a short start at the end", []string{"correct-horse-battery"}, []string{"said corr"}, "said corr"},
		// What shows as a blank or as nothing is looked through, in the secret
		// and in the text: the stream shows a no-break space as a space.
		{"a no-break space shown as a space", []string{"pass\u00a0word-99"}, []string{"got pass word-99 ok"}, "got ****** ok"},
		{"a zero-width space in the text", []string{"password-99"}, []string{"got pass\u200bword-99 ok"}, "got ****** ok"},
		{"a no-break space echoed", []string{"pass\u00a0word-99"}, []string{"got pass\u00a0word-99 ok"}, "got ****** ok"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		r := New(&out, c.secrets)
		for _, p := range c.in {
			if _, err := r.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("%s: %q through %q: got %q, want %q", c.name, c.in, c.secrets, out.String(), c.want)
		}
	}
}

func TestRedactorString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		secret, in, want string
	}{
		{"pin", "pin: pin, spinning", "******: ******, spinning"},
		// A secret wrapped at the screen's right margin.
		{"sw0rdfish-42", "login: sw0rd\nfish-42\n$", "login: ******\n\n$"},
		// What a cut leaves of a secret, at either end.
		{"0123456789abcdef", "89abcdef and more", "****** and more"},
		{"0123456789abcdef", "more and 01234567", "more and ******"},
		{"0123456789abcdef", "9abcdef and more", "9abcdef and more"},
		{`say "hi"\now`, `reason: "say \"hi\"\\now"`, `reason: "******"`},
		{"日本語のパスワード", "got 日本語のパスワード!", "got ******!"},
	}
	for _, c := range cases {
		if got := New(nil, []string{c.secret}).String(c.in); got != c.want {
			t.Errorf("String(%q) with %q = %q, want %q", c.in, c.secret, got, c.want)
		}
	}
	r := New(nil, nil)
	if got := r.String("typed-later-1"); got != "typed-later-1" {
		t.Errorf("no secret: %q", got)
	}
	r.Filter(nil).Add("typed-later-1")
	if got := r.String("it was typed-later-1"); got != "it was ******" {
		t.Errorf("a secret added through a filter: %q", got)
	}
}

// TestRedactorHoldsLittle checks that the stream filter holds back no more than
// a secret's start, however long the output that follows it.
func TestRedactorHoldsLittle(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	r := New(&out, []string{"hunter2"})
	if _, err := r.Write([]byte("hunte")); err != nil {
		t.Fatal(err)
	}
	colours := strings.Repeat("\x1b[1m", 10_000)
	if _, err := r.Write([]byte(colours)); err != nil {
		t.Fatal(err)
	}
	if held := len(r.pending); held > r.maxHold() {
		t.Errorf("held %d bytes, more than %d", held, r.maxHold())
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hunte"+colours {
		t.Errorf("got %q…", out.String()[:20])
	}
}

// BenchmarkRedactorWrite filters 64 KiB reads of coloured program output
// through the mirror's filter, with two secrets to hide.
func BenchmarkRedactorWrite(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[32mok\x1b[0m building module 42 of 97\r\n", 64<<10/40))
	r := New(io.Discard, []string{"hunter2-correct-horse", "s3cr3t\nline"})
	r.w = &bytes.Buffer{}
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		r.w.(*bytes.Buffer).Reset()
		if _, err := r.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedactorString masks an 8 KiB window of output, as an event's text.
func BenchmarkRedactorString(b *testing.B) {
	text := strings.Repeat("building module 42 of 97\n", 8<<10/25)
	r := New(nil, []string{"hunter2-correct-horse", "s3cr3t\nline"})
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = r.String(text)
	}
}
