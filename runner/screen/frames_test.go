package screen

import (
	"strings"
	"testing"
)

// A row that shows other text at the end of a frame, and then what it showed
// before, is known to have changed; without frames marked, or with nothing
// changed at a frame's end, it is not.
func TestChangedInFrames(t *testing.T) {
	t.Parallel()
	const dialog = "\x1b[?2026h\x1b[3;1H\x1b[2KRun ls?\x1b[4;1H\x1b[2K› 1. Yes\x1b[?2026l"
	const taken = "\x1b[?2026h\x1b[3;1H\x1b[2K\x1b[4;1H\x1b[2K• Running ls\x1b[?2026l"
	rows := func(s *Screen) string {
		var b strings.Builder
		for y, c := range s.ChangedInFrames(nil) {
			if c {
				b.WriteByte(byte('0' + y))
			}
		}
		return b.String()
	}
	cases := []struct {
		name, between, want string
	}{
		{"taken down and drawn again", taken + dialog, "23"},
		{"drawn again as it was", dialog, ""},
		{"the same without frames", strings.ReplaceAll(strings.ReplaceAll(taken+dialog, "\x1b[?2026h", ""), "\x1b[?2026l", ""), ""},
		// The dialog pushed down a row by a line drawn above it: its rows
		// show what other rows showed, it moved and did not go away; the
		// row drawn above it changed.
		{"moved down by a line above", "\x1b[?2026h\x1b[3;1H\x1b[2KAllow ls?\x1b[4;1H\x1b[2KRun ls?\x1b[5;1H\x1b[2K› 1. Yes\x1b[?2026l", "2"},
		{"a spinner elsewhere", "\x1b[?2026h\x1b[1;1H\x1b[2K- working\x1b[?2026l\x1b[?2026h\x1b[1;1H\x1b[2K\\ working\x1b[?2026l", "0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := New(6, 40)
			s.Write([]byte(dialog))
			s.MarkFrames()
			s.Write([]byte(c.between))
			if got := rows(s); got != c.want {
				t.Fatalf("rows changed in frames %q, want %q; screen:\n%s", got, c.want, s.Text())
			}
			s.MarkFrames()
			if got := rows(s); got != "" {
				t.Fatalf("after MarkFrames: %q", got)
			}
		})
	}
}

// A program that ends a frame every few bytes gets no more comparisons than
// its output pays for: the work stays linear in what it writes.
func TestFramesStayWithinTheirBudget(t *testing.T) {
	t.Parallel()
	s := New(40, 120)
	s.MarkFrames()
	frame := "\x1b[?2026h\x1b[2J\x1b[?2026l"
	const n = 10000
	s.Write([]byte(strings.Repeat(frame, n)))
	// Each frame blanks every row: 4,800 cells to compare, for 17 bytes; a
	// screenful is free after MarkFrames.
	if paid := 40*120 + n*len(frame)*frameBudget; s.frames.compared > paid {
		t.Fatalf("compared %d cells for %d bytes, more than the %d they pay for", s.frames.compared, n*len(frame), paid)
	}
}

// A pause may cut a frame short, its rest late under load: a program that
// marks no frames erases rows and writes them again, so what a pause shows
// counts only on rows above the cursor that hold text. Rows erased and the
// row written up to the cursor do not count; a row written whole does.
func TestPauseFramesCountWholeRowsOnly(t *testing.T) {
	t.Parallel()
	const dialog = "\x1b[3;1H\x1b[2KRun ls?\x1b[4;1H\x1b[2K› 1. Yes\x1b[6;1H"
	for _, c := range []struct {
		name, cut, want string
	}{
		{"erased, then cut in the first row", "\x1b[3;1H\x1b[J\x1b[3;1HRun", ""},
		{"a row written whole above the cursor", "\x1b[3;1H\x1b[J\x1b[3;1H• Running ls\r\n", "2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := New(6, 40)
			s.Write([]byte(dialog))
			s.MarkFrames()
			s.Write([]byte(c.cut))
			s.EndFrame()
			s.Write([]byte(dialog))
			var got strings.Builder
			for y, changed := range s.ChangedInFrames(nil) {
				if changed {
					got.WriteByte(byte('0' + y))
				}
			}
			if got.String() != c.want {
				t.Fatalf("rows changed %q, want %q", got.String(), c.want)
			}
		})
	}
}
