package runner

import (
	"bytes"
	"testing"
)

func TestLineEndStartsAFreshLineOnlyMidLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		writes []string
		want   string // what fresh adds
	}{
		{"nothing shown", nil, ""},
		{"a prompt", []string{"Name: "}, "\r\n"},
		{"a whole line", []string{"done\r\n"}, ""},
		{"a line, then a colour reset", []string{"done\n\x1b[0m"}, ""},
		{"a colour reset on its own after a line", []string{"done\n", "\x1b[0m\x1b[?25h"}, ""},
		{"a colour reset on its own after a prompt", []string{"Name: ", "\x1b[0m"}, "\r\n"},
		{"a line redrawn from its start", []string{"50%\r"}, "\r\n"},
		{"an escape that is no CSI", []string{"done\n\x1b7"}, "\r\n"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		l := &lineEnd{w: &out, eol: "\r\n"}
		shown := ""
		for _, w := range c.writes {
			if _, err := l.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
			shown += w
		}
		l.fresh()
		if got := out.String(); got != shown+c.want {
			t.Errorf("%s: the terminal shows %q, want %q", c.name, got, shown+c.want)
		}
		l.fresh()
		if got := out.String(); got != shown+c.want {
			t.Errorf("%s: a second fresh line added %q", c.name, got[len(shown)+len(c.want):])
		}
	}
}

func TestNewLineEndOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	if l := newLineEnd(&bytes.Buffer{}, false); l != nil {
		t.Error("output that is not a terminal is tracked")
	}
	if l := newLineEnd(&bytes.Buffer{}, true); l == nil || l.eol != "\r\n" {
		t.Errorf("clai's terminal: %+v, want \\r\\n lines", l)
	}
}
