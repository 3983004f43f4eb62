package stream

import (
	"fmt"
	"testing"
)

// A write that scrolls the rows over the cursor's draws on its row, even
// when the cursor ends on the row it began on and the row shows what it
// showed: the prompt answered on the bottom row, asked again after the
// answer's echo scrolled it up. A clock drawn elsewhere on the full screen
// still draws only elsewhere.
func TestDrewElsewhereAfterAScroll(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, write string
		elsewhere   bool
	}{
		{"clock on the first row", "\x1b7\x1b[1;1H\x1b[2Kuptime 9s\x1b8", true},
		{"prompt asked again", "alice\r\ngot: alice\r\nName: ", false},
		{"the rows scrolled up (SU) and the prompt drawn again", "\x1b[2S\x1b[5;1HName: ", false},
		{"the rows scrolled above the prompt's row only", "\x1b[1;4r\x1b[4;1H\n\x1b[r\x1b[5;1HName: ", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var s Stripper
			s.SetWidth(40)
			s.SetHeight(5)
			var dst []byte
			for i := range 3 {
				dst = s.Settle(s.Append(dst[:0], fmt.Appendf(nil, "Name: alice\r\ngot: alice %d\r\n", i)))
			}
			dst = s.Settle(s.Append(dst[:0], []byte("Name: ")))
			dst = s.Settle(s.Append(dst[:0], []byte(c.write)))
			if elsewhere, atText := s.DrewElsewhere(); elsewhere != c.elsewhere || !atText && c.elsewhere {
				t.Fatalf("drew elsewhere %t (at text %t), want %t; the stream got %q", elsewhere, atText, c.elsewhere, dst)
			}
		})
	}
}
