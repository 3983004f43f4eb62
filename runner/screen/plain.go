package screen

import (
	"bytes"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// Plain output: lines of printable ASCII, carriage returns, line feeds and SGR
// sequences (colours and attributes). A build log or an agent's transcript is
// mostly that, and a flood of it scrolls off the screen long before anyone looks:
// the emulator still draws every character and, for every line feed at the
// bottom, moves each row up and copies the row that leaves into its scrollback,
// which made matching a screen many times slower than matching the stream. Two
// things keep that down, and neither changes a cell that can be seen:
//
//   - A Screen holds plain output back until the screen is looked at (Text,
//     TextAtCursor, Version, Changed, Cursor, Resize), other output arrives, or
//     maxPending bytes wait. Plain output asks nothing and sets no mode, so
//     Replies and AppCursor need not wait for it.
//   - Of a long run of plain output, the emulator is given only what can still
//     be seen at its end (see skip).

// maxPending bounds the plain output a Screen holds back; minSkip is the least
// output worth leaving out of a run (a smaller gain does not pay for the
// summary that replaces it).
const (
	maxPending = 256 << 10
	minSkip    = 4 << 10
)

// parseState follows the state of the emulator's parser over the bytes it is
// given, so that feed knows whether a byte starts a sequence or continues one.
// It uses the parser's own transition table; the parser collects the bytes of a
// UTF-8 character outside the table, whatever they are, as it does here.
type parseState struct {
	state    parser.State
	utf8Left int // bytes still to come of a UTF-8 character
}

func (p *parseState) ground() bool { return p.state == parser.GroundState }

// advance moves the state over byte b.
func (p *parseState) advance(b byte) {
	if p.state == parser.Utf8State {
		if p.utf8Left--; p.utf8Left <= 0 {
			p.state = parser.GroundState
		}
		return
	}
	next, _ := parser.Table.Transition(p.state, b)
	if next == parser.Utf8State {
		p.utf8Left = utf8Len(b) - 1
	}
	p.state = next
}

// utf8Len is the length of the UTF-8 character that lead byte b starts, as the
// parser counts it.
func utf8Len(b byte) int {
	switch {
	case b >= 0xF0:
		return 4
	case b >= 0xE0:
		return 3
	default:
		return 2
	}
}

// plainTail says where plain output that a Screen holds back ends: between two
// tokens, or inside an SGR sequence that a write cut short.
type plainTail uint8

const (
	tailNone plainTail = iota // between tokens
	tailEsc                   // after ESC
	tailCSI                   // after ESC [ and any parameter bytes
)

// plainPrefix returns how many bytes of p continue plain output that ends in t,
// and where the output ends after them.
func plainPrefix(p []byte, t plainTail) (int, plainTail) {
	for i, b := range p {
		switch t {
		case tailNone:
			switch {
			case b >= 0x20 && b < 0x7f, b == '\r', b == '\n':
			case b == ansi.ESC:
				t = tailEsc
			default:
				return i, t
			}
		case tailEsc:
			if b != '[' {
				return i, t
			}
			t = tailCSI
		case tailCSI:
			switch {
			case b >= '0' && b <= ';': // digits, ':' and ';'
			case b == 'm':
				t = tailNone
			default:
				return i, t
			}
		}
	}
	return len(p), t
}

// sgrLen returns the length of the SGR sequence (ESC [ digits, ':' and ';', m)
// at the start of b, or 0 when b does not start with a whole one; and whether
// its first parameter is 0 (or missing), which resets every attribute first, so
// that the pen after it does not depend on the pen before.
func sgrLen(b []byte) (n int, reset bool) {
	if len(b) < 3 || b[0] != ansi.ESC || b[1] != '[' {
		return 0, false
	}
	for i := 2; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= ';':
		case c == 'm':
			params := b[2:i]
			reset = len(params) == 0 || params[0] == ';' ||
				params[0] == '0' && (len(params) == 1 || params[1] == ';' || params[1] == ':')
			return i + 1, reset
		default:
			return 0, false
		}
	}
	return 0, false
}

// plainRun describes a run of plain output found by scan.
type plainRun struct {
	end   int // index after the run
	first int // index after its first printable character, or -1
	lfs   []lineFeed
}

// lineFeed is a line feed of a run.
type lineFeed struct {
	at int
	// home is set when the cursor is at the start of its row after the line
	// feed, wherever it was before the run: a carriage return came before it
	// with no printable character in between.
	home bool
	// pen is the index of the last SGR sequence before the line feed (and
	// after the run's first printable character) that resets the pen, or -1.
	pen int
	// char is the last printable character before the line feed and after
	// the run's first one, or 0.
	char byte
}

// scan finds the run of plain output that starts at b[i].
func (r *plainRun) scan(b []byte, i int) {
	r.first, r.lfs = -1, r.lfs[:0]
	home, pen, char := false, -1, byte(0)
	for i < len(b) {
		switch c := b[i]; {
		case c >= 0x20 && c < 0x7f:
			if r.first < 0 {
				r.first = i + 1
			} else {
				char = c
			}
			home = false
		case c == '\r':
			home = true
		case c == '\n':
			r.lfs = append(r.lfs, lineFeed{at: i, home: home, pen: pen, char: char})
		case c == ansi.ESC:
			n, reset := sgrLen(b[i:])
			if n == 0 {
				r.end = i
				return
			}
			if reset && r.first >= 0 {
				pen = i
			}
			i += n
			continue
		default:
			r.end = i
			return
		}
		i++
	}
	r.end = i
}

// feed writes b to the emulator, leaving out of each long run of plain output
// what scrolls off the screen unseen (see skip).
func (s *Screen) feed(b []byte) {
	start := 0 // b[start:] is not written yet
	for i := 0; i < len(b); {
		if c := b[i]; !s.parse.ground() || c < 0x20 && c != '\r' && c != '\n' && c != ansi.ESC || c >= 0x7f {
			s.parse.advance(c)
			i++
			continue
		}
		r := &s.run
		r.scan(b, i)
		if r.end == i { // an escape sequence other than SGR
			s.parse.advance(b[i])
			i++
			continue
		}
		if len(r.lfs) >= 2*s.emu.Height()-1 {
			// Worth a look: the emulator takes the output before the run
			// first, which may change the screen, its size or its margins.
			s.emuWrite(b[start:i])
			start = i
			if k, ok := s.cut(r); ok {
				lf := r.lfs[k]
				cut, pen := lf.at+1, lf.pen
				if pen < 0 {
					pen = r.first
				}
				s.emuWrite(b[start:r.first])
				s.skip(lf.char, b[pen:cut])
				s.skipped += cut - r.first
				start = cut
			}
		}
		i = r.end // a run starts and ends in the parser's ground state
	}
	s.emuWrite(b[start:])
}

// cut returns the line feed of run r after which the output that scrolls off
// unseen ends; ok is false when nothing is worth leaving out.
//
// The cut is after a line feed of the run that leaves the cursor at the start
// of the bottom row, followed by at least as many line feeds as the screen has
// rows. With the scroll region the whole screen, plain output never moves the
// cursor up, a line feed moves it down a row, and one on the bottom row
// scrolls: rows-1 line feeds from the start of the run bring the cursor to the
// bottom row, and the line feeds after the cut push every row that was on the
// screen at the cut off it.
func (s *Screen) cut(r *plainRun) (k int, ok bool) {
	if r.first < 0 || s.margins[s.screenIndex()] {
		return 0, false
	}
	rows := s.emu.Height()
	m0 := 0 // the first line feed after the run's first printable character
	for m0 < len(r.lfs) && r.lfs[m0].at < r.first {
		m0++
	}
	for k := len(r.lfs) - 1 - rows; k >= m0 && k >= rows-2; k-- {
		if lf := r.lfs[k]; lf.home {
			return k, lf.at+1-r.first >= s.minSkip
		}
	}
	return 0, false
}

// skip stands in for the output of a run between its first printable
// character and the cut, of which nothing will be seen, and leaves the
// emulator as that output would for everything the rest of the run draws:
//
//   - the cursor at the start of the bottom row, with no wrap pending;
//   - the pen: the SGR sequences in sgrs, those from the last one that resets
//     it on;
//   - the character that REP (CSI b) repeats: char, the last printable
//     character before the cut, if any after the first.
//
// The run's first printable character went to the emulator before: it takes up
// a pending single shift (SS2, SS3). What the skipped output would leave in the
// scrollback is never shown.
func (s *Screen) skip(char byte, sgrs []byte) {
	sum := append(s.sum[:0], '\r')
	if char != 0 {
		sum = append(sum, char, '\r')
	}
	s.emuWrite(sum)
	sum = sum[:0]
	for range s.emu.Height() - 1 - s.emu.CursorPosition().Y {
		sum = append(sum, '\n')
	}
	for {
		i := bytes.IndexByte(sgrs, ansi.ESC)
		if i < 0 {
			break
		}
		n, _ := sgrLen(sgrs[i:])
		sum = append(sum, sgrs[i:i+n]...)
		sgrs = sgrs[i+n:]
	}
	s.emuWrite(sum)
	s.sum = sum
}

// emuWrite hands b to the emulator.
func (s *Screen) emuWrite(b []byte) {
	if len(b) > 0 {
		_, _ = s.emu.Write(b) // only fails once the emulator is closed; it never is
	}
}

// screenIndex is 0 on the main screen and 1 on the alternate screen.
func (s *Screen) screenIndex() int {
	if s.emu.IsAltScreen() {
		return 1
	}
	return 0
}

// watchMargins keeps margins up to date: it sees each DECSTBM and DECSLRM
// sequence before the emulator does (but after the handler that keeps the
// margins on the screen), and works out its effect as the emulator will.
func (s *Screen) watchMargins() {
	s.emu.RegisterCsiHandler('r', func(params ansi.Params) bool {
		height := s.emu.Height()
		top, _, _ := params.Param(0, 1)
		bottom, _, _ := params.Param(1, height)
		top, bottom = max(top, 1), cmpOr(bottom, height)
		if top < bottom {
			s.vmargins[s.screenIndex()] = top != 1 || bottom != height
			s.updateMargins()
		}
		return false
	})
	s.emu.RegisterCsiHandler('s', func(params ansi.Params) bool {
		if !s.modes[ansi.ModeLeftRightMargin] {
			return false // SCOSC, save the cursor
		}
		width := s.emu.Width()
		left, _, _ := params.Param(0, 1)
		right, _, _ := params.Param(1, width)
		left, right = max(left, 1), cmpOr(right, width)
		if left < right {
			s.hmargins[s.screenIndex()] = left != 1 || right != width
			s.updateMargins()
		}
		return false
	})
}

// cmpOr returns n, or def when n is below 1.
func cmpOr(n, def int) int {
	if n < 1 {
		return def
	}
	return n
}

// updateMargins sets margins from the vertical and horizontal margins.
func (s *Screen) updateMargins() {
	for i := range s.margins {
		s.margins[i] = s.vmargins[i] || s.hmargins[i]
	}
}
