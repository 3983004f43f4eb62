package screen

import "testing"

// A bottom or right margin past the screen's edge ends at it, as in xterm: the
// emulator used to index past its rows or columns and panic on the next
// scroll, insert or wrap within the margins.
func TestMarginsPastTheScreen(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ out, text string }{
		{"a\r\nb\x1b[;10r\x1bM", "\na"},                      // reverse index at the top margin
		{"a\r\nb\x1b[;10r\x1b[2;1H\n\n", ""},                 // line feeds at the bottom margin
		{"a\r\nb\x1b[1;2r\x1b[2;1H\n", "b"},                  // the same margin, given exactly
		{"abc\x1b[?69h\x1b[2;100s\x1b[1;2H\x1b[3@", "a   b"}, // insert characters
		{"abc\x1b[?69h\x1b[;100s\x1b[M", ""},                 // delete a line
		{"\x1b[?69h\x1b[;100sxyzxyz", "xyzxy\nz"},            // wrap at the right margin
		{"\x1b[?69l\x1b[5;9sabc\x1b[u", "abc"},               // without ?69, CSI s saves the cursor
	} {
		s := New(2, 5)
		s.Write([]byte(c.out))
		if got := s.Text(); got != c.text {
			t.Errorf("%q: text %q, want %q", c.out, got, c.text)
		}
	}
}
