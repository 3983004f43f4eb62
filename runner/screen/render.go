package screen

import (
	"strconv"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"

	"github.com/clai-sh/clai/internal/glyph"
)

// render builds the normalised visible text from the emulator's cells, the
// same with the blanks before the cursor kept (see TextAtCursor), and the sum
// of the cells' shades.
func (s *Screen) render() (text, atCursor string, shades shadeSum) {
	b := s.buf[:0]
	rows, cols := s.emu.Height(), s.emu.Width()
	keep := 0 // length of b up to the last non-empty row
	cy, cx := s.cursor()
	if !s.modes[ansi.ModeTextCursorEnable] {
		cy = -1
	}
	padAt, pad := 0, 0 // where in the text blanks go before the cursor, and how many
	for y := 0; y < rows; y++ {
		if y > 0 {
			b = append(b, '\n')
		}
		start := len(b)
		end := start // length of b up to the last non-blank cell of this row
		cursor := -1 // length of b before the cursor's cell, on its row
		for x := 0; x < cols; x++ {
			if y == cy && x == cx {
				cursor = len(b)
			}
			c := s.emu.CellAt(x, y)
			b, end = appendCell(b, c, end)
			if c != nil && (c.Style.Bg != nil || c.Style.Attrs&uv.AttrReverse != 0) {
				shades = shades.add(y, x, c) // the rest shows the default background
			}
		}
		if end > start && cursor > end {
			// Only blanks lie between the row's end and the cursor.
			padAt, pad = end, cursor-end
		}
		b = b[:end]
		if end > start {
			keep = end
		}
	}
	s.buf = b
	text = string(b[:keep])
	if pad == 0 {
		return text, text, shades
	}
	return text, text[:padAt] + strings.Repeat(" ", pad) + text[padAt:], shades
}

// appendCell appends the text of cell c as Text shows it. It returns b and the
// length of b up to its last character that is not blank, from end.
func appendCell(b []byte, c *uv.Cell, end int) ([]byte, int) {
	switch {
	case c == nil:
		b = append(b, ' ')
	case c.Style.Attrs&uv.AttrConceal != 0 && c.Content != "":
		// Concealed text shows as a blank (a wide character's second half
		// takes no place, as below).
		b = append(b, ' ')
	case len(c.Content) == 1: // ASCII, the common case
		b = append(b, c.Content[0])
		if c.Content[0] != ' ' {
			end = len(b)
		}
	case c.Content == "":
		if c.Width != 0 {
			b = append(b, ' ')
		}
		// else: second half of a wide character, takes no place
	case glyph.Plain(c.Content):
		b = append(b, c.Content...)
		end = len(b)
	default:
		b, end = appendShown(b, c.Content, end)
	}
	return b, end
}

// appendShown appends a cell's text as a person sees it: a character that shows
// as a blank (a no-break space, an em space …) as a space, one that shows as
// nothing (a zero-width space, a directional mark …) left out. It returns b and
// the length of b up to its last character that is not blank, from end.
func appendShown(b []byte, content string, end int) ([]byte, int) {
	for _, r := range content {
		switch {
		case glyph.Blank(r):
			b = append(b, ' ')
		case glyph.Invisible(r):
		default:
			b = utf8.AppendRune(b, r)
			end = len(b)
		}
	}
	return b, end
}

// setMode records a mode change reported by the emulator.
func (s *Screen) setMode(m ansi.Mode, on bool) {
	if _, ok := s.modes[m]; ok {
		s.modes[m] = on
	}
}

// reply queues an answer for Replies.
func (s *Screen) reply(str string) {
	s.replies = append(s.replies, str...)
}

// registerHandlers installs handlers for every sequence on which the
// emulator would otherwise write an answer to its internal io.Pipe, which
// blocks until someone reads it. Handlers registered last run first; a
// handler that returns true stops the chain.
func (s *Screen) registerHandlers() {
	e := s.emu

	// DA1: ESC[c, ESC[0c.
	e.RegisterCsiHandler('c', func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n == 0 {
			s.reply(primaryDA)
		}
		return true
	})
	// DA2: ESC[>c, ESC[>0c.
	e.RegisterCsiHandler(ansi.Command('>', 0, 'c'), func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n == 0 {
			s.reply(secondaryDA)
		}
		return true
	})
	// DSR: ESC[5n (status), ESC[6n (cursor position).
	e.RegisterCsiHandler('n', func(params ansi.Params) bool {
		switch n, _, _ := params.Param(0, 0); n {
		case 5:
			s.reply("\x1b[0n")
		case 6:
			row, col := s.cursor()
			s.reply("\x1b[" + strconv.Itoa(row+1) + ";" + strconv.Itoa(col+1) + "R")
		}
		return true
	})
	// DECXCPR: ESC[?6n, answered with page 1 as xterm does.
	e.RegisterCsiHandler(ansi.Command('?', 0, 'n'), func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n == 6 {
			row, col := s.cursor()
			s.reply("\x1b[?" + strconv.Itoa(row+1) + ";" + strconv.Itoa(col+1) + ";1R")
		}
		return true
	})
	// DECRQM: ESC[Ps$p (ANSI) and ESC[?Ps$p (DEC).
	e.RegisterCsiHandler(ansi.Command(0, '$', 'p'), func(params ansi.Params) bool {
		if n, _, ok := params.Param(0, -1); ok && n >= 0 {
			s.reply(s.reportMode(ansi.ANSIMode(n)))
		}
		return true
	})
	e.RegisterCsiHandler(ansi.Command('?', '$', 'p'), func(params ansi.Params) bool {
		if n, _, ok := params.Param(0, -1); ok && n >= 0 {
			s.reply(s.reportMode(ansi.DECMode(n)))
		}
		return true
	})
	// SM/RM: hide the modes this screen does not implement from the
	// emulator, so that DECRQM stays truthful and so that the ones on which
	// the emulator would answer (2048, in-band resize) or change behaviour
	// (2027, grapheme widths; tmux, where the sessions were recorded, has
	// neither) stay off. Returning false hands the rest to the emulator.
	// The end of a synchronized update (ESC[?2026l) ends a frame (see
	// frames).
	for _, c := range []struct {
		cmd     int
		dec, on bool
	}{
		{'h', false, true}, {'l', false, false},
		{ansi.Command('?', 0, 'h'), true, true}, {ansi.Command('?', 0, 'l'), true, false},
	} {
		e.RegisterCsiHandler(c.cmd, func(params ansi.Params) bool {
			for i, p := range params {
				n := p.Param(-1)
				if n < 0 {
					continue
				}
				var m ansi.Mode = ansi.ANSIMode(n)
				if c.dec {
					m = ansi.DECMode(n)
				}
				if isFrameEnd(m, c.on) {
					s.frameEnded(false)
				}
				if _, ok := s.modes[m]; !ok {
					params[i] = ansi.Param(parser.MissingParam)
				}
			}
			return false
		})
	}
	// DECSTBM and DECSLRM: a bottom or right margin past the screen's last
	// row or column ends there, as in xterm. The emulator would take it as it
	// is and index past its rows or columns on the next scroll or insert.
	e.RegisterCsiHandler('r', func(params ansi.Params) bool {
		clampParam(params, 1, e.Height())
		return false
	})
	e.RegisterCsiHandler('s', func(params ansi.Params) bool {
		if s.modes[ansi.ModeLeftRightMargin] { // else SCOSC, save the cursor
			clampParam(params, 1, e.Width())
		}
		return false
	})
	// Counts: the emulator works once per count, and a count may be up to
	// 2^31, so a few bytes of output could keep it busy for minutes. Erasing
	// characters (ECH) or moving over tab stops (CHT, CBT) more times than a
	// row has cells ends where a row's worth ends; a repeat (REP) is held to a
	// screenful, as tmux holds it.
	for _, c := range []struct {
		cmd  int
		most func() int
	}{
		{'X', e.Width}, {'I', e.Width}, {'Z', e.Width},
		{'b', func() int { return e.Width() * e.Height() }},
	} {
		e.RegisterCsiHandler(c.cmd, func(params ansi.Params) bool {
			if n, more, ok := params.Param(0, 1); ok && n > c.most() {
				params[0] = ansi.Param(ansi.Parameter(c.most(), more))
			}
			return false
		})
	}
	// OSC 10/11/12 "?": default foreground, background and cursor colour.
	for _, cmd := range []int{10, 11, 12} {
		e.RegisterOscHandler(cmd, func(data []byte) bool {
			_, arg, _ := strings.Cut(string(data), ";")
			if arg != "?" {
				return false // set a colour: the emulator's job
			}
			var xrgb ansi.XRGBColor
			switch cmd {
			case 10:
				xrgb.Color = e.ForegroundColor()
			case 11:
				xrgb.Color = e.BackgroundColor()
			default:
				xrgb.Color = e.CursorColor()
			}
			if xrgb.Color != nil {
				s.reply("\x1b]" + strconv.Itoa(cmd) + ";" + xrgb.String() + "\x07")
			}
			return true
		})
	}
}

// clampParam lowers parameter i of params to most, if it is larger.
func clampParam(params ansi.Params, i, most int) {
	if i < len(params) && params[i].Param(0) > most {
		params[i] = ansi.Param(ansi.Parameter(most, params[i].HasMore()))
	}
}

// reportMode answers DECRQM for m: 1 set, 2 reset, 0 not recognised.
func (s *Screen) reportMode(m ansi.Mode) string {
	v := ansi.ModeNotRecognized
	if on, ok := s.modes[m]; ok {
		v = ansi.ModeReset
		if on {
			v = ansi.ModeSet
		}
	}
	return ansi.ReportMode(m, v)
}
