package screen

import "testing"

// TextAtCursor keeps the blanks between the end of the cursor's row and a
// visible cursor, and nothing else that Text trims.
func TestTextAtCursor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, out, text, atCursor string
	}{
		{"trailing space", "Password: ", "Password:", "Password: "},
		{"two spaces", "Name:  ", "Name:", "Name:  "},
		{"no space", "Password:", "Password:", "Password:"},
		{"cursor back over the space", "Password: \b", "Password:", "Password:"},
		{"hidden cursor", "\x1b[?25lPassword: ", "Password:", "Password:"},
		{"shown again", "\x1b[?25lPassword: \x1b[?25h", "Password:", "Password: "},
		{"blank cursor row", "Done\r\n   ", "Done", "Done"},
		{"other rows keep their trim", "a  \r\nPassword: ", "a\nPassword:", "a\nPassword: "},
		{"cursor on a row above", "Top \r\nbottom  \x1b[1;6H", "Top\nbottom", "Top  \nbottom"},
		{"cursor inside the text", "Password: x\x1b[1;3H", "Password: x", "Password: x"},
		{"wide characters", "名前: ", "名前:", "名前: "},
	} {
		s := New(5, 40)
		s.Write([]byte(c.out))
		if got := s.Text(); got != c.text {
			t.Errorf("%s: Text %q, want %q", c.name, got, c.text)
		}
		if got := s.TextAtCursor(); got != c.atCursor {
			t.Errorf("%s: TextAtCursor %q, want %q", c.name, got, c.atCursor)
		}
	}
}

// The cursor moving over blanks changes TextAtCursor, and the version with it:
// a prompt's trailing space written apart from the prompt is seen.
func TestVersionFollowsTheCursor(t *testing.T) {
	t.Parallel()
	s := New(5, 40)
	s.Write([]byte("Password:"))
	v := s.Version()
	s.Write([]byte(" "))
	if s.Version() == v || s.TextAtCursor() != "Password: " || s.Text() != "Password:" {
		t.Fatalf("after the space: version %d (was %d), %q", s.Version(), v, s.TextAtCursor())
	}
}
