package screen

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// A program that marks its frames with synchronized output (DEC mode 2026:
// ESC[?2026h, the frame, ESC[?2026l, as Codex CLI does) shows each frame
// whole; one that marks none (Claude Code, Gemini CLI) writes each frame in a
// burst, and what the screen shows when the program pauses is a frame too
// (the caller, who knows the time, says so with EndFrame). Between two looks
// at the screen a program may show a frame for a few milliseconds only: a
// dialog taken down once answered, and the next one drawn on the same rows
// 90 ms later. The screen remembers which rows
// showed other text than at the last MarkFrames at the end of a frame, so that
// a caller that looks only once the screen is still learns that what it shows
// there went away meanwhile.
//
// Only rows whose cells changed in the frame are compared (the emulator marks
// them), and only within a budget: a screenful from each MarkFrames on, so
// the frames right after a look are compared, and frameBudget cells for each
// byte written after it, so a program that ends a frame every few bytes costs
// linear time. Past the budget a frame end is passed over, which at worst
// misses a row that changed and changed back, as if the program marked no
// frames.
type frames struct {
	marked bool
	// filled says which rows held text when MarkFrames last looked, and shown
	// what text they held; changed the rows that showed other text at the
	// end of a frame since.
	filled  []bool
	shown   map[string]bool
	changed []bool
	// budget is how many cells frame ends may still compare; compared counts
	// those they did.
	budget, compared int
	row              []byte // scratch
}

// frameBudget is how many cells a frame end may compare for each byte the
// program wrote.
const frameBudget = 16

// MarkFrames starts remembering, from the screen as it is now, which rows
// show other text at the end of a frame (see ChangedInFrames).
func (s *Screen) MarkFrames() {
	s.sync()
	f := &s.frames
	f.marked = true
	f.filled = f.filled[:0]
	if f.shown == nil {
		f.shown = map[string]bool{}
	}
	clear(f.shown)
	for line := range strings.SplitSeq(s.text, "\n") {
		f.filled = append(f.filled, line != "")
		if line != "" {
			f.shown[line] = true
		}
	}
	f.changed = f.changed[:0]
	f.budget = s.emu.Height() * s.emu.Width()
	clear(s.emu.Touched())
}

// ChangedInFrames appends to dst, for each row of the screen, whether the row
// showed other text than at the last MarkFrames at the end of a frame (one
// the program marked with synchronized output, or one EndFrame marked), text
// that no row showed then (a row that shows what another showed moved, and
// did not go away), and returns it. Without a MarkFrames, or when no frame
// ended, no row did.
func (s *Screen) ChangedInFrames(dst []bool) []bool {
	s.sync()
	rows := s.emu.Height()
	for y := range rows {
		dst = append(dst, y < len(s.frames.changed) && s.frames.changed[y])
	}
	return dst
}

// frameEnded compares the rows whose cells changed since the last frame end
// with the rows MarkFrames saw, within the budget. A frame the program marked
// (synchronized output) is whole; one a pause marks (paused) may be a frame
// cut short, its rest late under load: a program that marks none erases rows
// and writes them again, so a row blanked or the row the cursor is on (written
// up to there) does not count.
func (s *Screen) frameEnded(paused bool) {
	f := &s.frames
	if !f.marked {
		return
	}
	touched := s.emu.Touched()
	cols := s.emu.Width()
	n := 0
	for _, t := range touched {
		if t != nil {
			n++
		}
	}
	if n == 0 || n*cols > f.budget {
		return
	}
	f.budget -= n * cols
	f.compared += n * cols
	cy, _ := s.cursor()
	for y, t := range touched {
		if t == nil {
			continue
		}
		f.row = s.rowText(f.row[:0], y)
		// A row that shows what a row showed moved there, or stayed (the
		// screen scrolled, a dialog was drawn above another): it did not
		// go away. A row blanked did.
		filled := y < len(f.filled) && f.filled[y]
		if paused && (len(f.row) == 0 || y == cy) {
			continue
		}
		if len(f.row) == 0 && filled || len(f.row) > 0 && !f.shown[string(f.row)] {
			for len(f.changed) <= y {
				f.changed = append(f.changed, false)
			}
			f.changed[y] = true
		}
	}
	clear(touched)
}

// EndFrame tells the screen that what it shows now was shown whole: the
// program paused after writing it (a program that marks no frames writes
// each one in a burst, and pauses between them), so it is a frame, as a
// synchronized update's end marks one.
func (s *Screen) EndFrame() {
	if s.frames.marked {
		s.sync()
		s.frameEnded(true)
	}
}

// earnFrames adds the budget that n bytes written give frame ends.
func (s *Screen) earnFrames(n int) {
	if s.frames.marked {
		s.frames.budget = min(s.frames.budget+n*frameBudget, 1<<30)
	}
}

// rowText appends the text of row y as Text shows it, trailing blanks
// trimmed.
func (s *Screen) rowText(b []byte, y int) []byte {
	start := len(b)
	end := start
	for x := range s.emu.Width() {
		b, end = appendCell(b, s.emu.CellAt(x, y), end)
	}
	return b[:end]
}

// isFrameEnd reports whether a mode reset ends a frame.
func isFrameEnd(m ansi.Mode, on bool) bool {
	return !on && m == ansi.ModeSynchronizedOutput
}
