package keys

import (
	"bytes"
	"slices"
	"testing"
)

func TestEveryKeyHasBytesAndATmuxName(t *testing.T) {
	t.Parallel()
	seen := map[Key]bool{}
	for _, s := range table() {
		k := s.name
		if seen[k] {
			t.Errorf("key %q is in the table twice", k)
		}
		seen[k] = true
		if k.Tmux() == "" {
			t.Errorf("key %q has no tmux name", k)
		}
		for _, app := range []bool{false, true} {
			b := k.Bytes(app)
			if len(b) == 0 {
				t.Errorf("key %q (application cursor %v) sends nothing", k, app)
				continue
			}
			if !isControl(b[0]) {
				continue // typed as text
			}
			// What a terminal sends for a key reads as a key that sends the
			// same (ctrl-i reads as tab).
			if got, n := Read(b); n != len(b) || !bytes.Equal(got.Bytes(app), b) {
				t.Errorf("key %q (application cursor %v) sends %q, which reads as %q (%d bytes)", k, app, b, got, n)
			}
		}
	}
	for _, name := range Names() {
		if !seen[Key(name)] || !Known(Key(name)) {
			t.Errorf("name %q is not a known key", name)
		}
	}
}

func TestNamesInDocumentationOrder(t *testing.T) {
	t.Parallel()
	want := []string{"enter", "tab", "esc", "up", "down", "left", "right", "home", "end",
		"pgup", "pgdn", "backspace", "delete", "space"}
	for c := 'a'; c <= 'z'; c++ {
		want = append(want, "ctrl-"+string(c))
	}
	want = append(want, "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12")
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q\nwant %q", got, want)
	}
	for _, k := range []Key{"insert", "backtab", "Enter", ""} {
		if Known(k) {
			t.Errorf("Known(%q): a playbook cannot name it", k)
		}
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		key       Key
		appCursor bool
		want      string
	}{
		{"enter", false, "\r"},
		{"up", false, "\x1b[A"},
		{"up", true, "\x1bOA"},
		{"end", true, "\x1bOF"},
		{"pgdn", true, "\x1b[6~"},
		{"ctrl-c", true, "\x03"},
		{"f12", false, "\x1b[24~"},
		{"space", false, " "},
		{"nosuchkey", false, ""},
	} {
		if got := string(c.key.Bytes(c.appCursor)); got != c.want {
			t.Errorf("%q (application cursor %v) = %q, want %q", c.key, c.appCursor, got, c.want)
		}
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Key
		n    int
	}{
		{"\x1b[Bx", "down", 3},
		{"\x1bOB", "down", 3},
		{"\x1b[15~", "f5", 5},
		{"\x1b[1~", "home", 4},
		{"\x1b[Z", "backtab", 3},
		{"\x1b[2~", "insert", 4},
		{"\x1b", "esc", 1},
		{"\x1b[", "esc", 1},
		{"\x1b\x1b[A", "esc", 1},
		{"\r", "enter", 1},
		{"\t", "tab", 1},
		{"\n", "ctrl-j", 1},
		{"\x7f", "backspace", 1},
		{" ", "", 0},
		{"a", "", 0},
		{"\x00", "", 0},
		{"\x1c", "", 0},
		{"", "", 0},
	} {
		if got, n := Read([]byte(c.in)); got != c.want || n != c.n {
			t.Errorf("Read(%q) = %q, %d; want %q, %d", c.in, got, n, c.want, c.n)
		}
	}
}
