package screen

import "testing"

// Text shows what a person sees: concealed text as blanks, a character that
// shows as a blank as a space, one that shows as nothing left out.
func TestTextShowsWhatAPersonSees(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"zero-width space", "rm\u200b -rf /", "rm -rf /"},
		{"zero-width joiner", "r\u200dm -rf /", "rm -rf /"},
		{"soft hyphen", "rm\u00ad -rf /", "rm -rf /"},
		{"byte order mark", "r\ufeffm -rf /", "rm -rf /"},
		{"right-to-left override", "rm\u202e -rf /", "rm -rf /"},
		{"variation selector", "r\ufe0fm -rf /", "rm -rf /"},
		{"no-break space", "rm\u00a0-rf\u00a0/", "rm -rf /"},
		{"em space", "rm\u2003-rf\u2003/", "rm -rf /"},
		{"ideographic space", "rm\u3000-rf /", "rm -rf /"},
		{"Hangul filler", "rm\u3164-rf /", "rm -rf /"},
		{"concealed", "rm\x1b[8mXXX\x1b[28m-rf /", "rm   -rf /"},
		{"concealed wide", "rm\x1b[8m世\x1b[0m-rf /", "rm -rf /"},
		{"plain unicode stays", "é 世界 ok", "é 世界 ok"},
	} {
		s := New(5, 40)
		s.Write([]byte(c.in))
		if got := s.Text(); got != c.want {
			t.Errorf("%s: %q shows as %q, want %q", c.name, c.in, got, c.want)
		}
	}
}
