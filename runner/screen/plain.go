package screen

import (
	"bytes"
	"strconv"

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
//     TextAtCursor, Version, Changed, Cursor, Resize) or other output arrives,
//     and leaves out of it, as it comes, what will have scrolled off by then
//     (see compact): a flood costs the emulator one screenful a look. Plain
//     output asks nothing and sets no mode, so Replies and AppCursor need not
//     wait for it, and while it is held back the emulator's state (its size,
//     margins, modes) is as it will be when it takes the output in.
//   - Of a long run of plain output in other output, the emulator is given only
//     what can still be seen at its end (see feed).

// maxPending bounds the plain output a Screen holds back as it came (when
// none of it can be left out); below minSkip bytes, output is not looked at to
// leave some of it out (the gain would not pay for the summary); maxPen bounds the SGR sequences that stand in for the pen of the output left
// out, which grow while the output never resets the pen.
const (
	maxPending = 256 << 10
	minSkip    = 4 << 10
	maxPen     = 4 << 10
)

// held is plain output held back from the emulator. Once some of it is left
// out, it reads as head, then the summary of what was left out (see
// appendSummary), then tail.
type held struct {
	head    []byte // the output up to its first printable character
	skipped bool   // output after head was left out
	pen     []byte // the SGR sequences that set the pen where the left out output ends
	char    byte   // the last printable character left out, or 0
	lfs     int    // the line feeds in head and in the output left out
	// retry is the length of the tail from which compact looks at it again
	// after it found nothing to leave out: twice what it was then.
	retry int
	// tail is the output after the part left out, all of it when nothing
	// was; end says whether its last SGR sequence is cut short.
	tail []byte
	end  plainTail
}

func (h *held) any() bool { return len(h.head) > 0 || h.skipped || len(h.tail) > 0 }

func (h *held) reset() {
	*h = held{head: h.head[:0], pen: h.pen[:0], tail: h.tail[:0]}
}

// compact leaves out of the output held back what will have scrolled off the
// screen when the emulator takes it in, as cut describes, and keeps what stands
// in for it in held.
func (s *Screen) compact() {
	h := &s.held
	if s.margins[s.screenIndex()] || len(h.tail) < max(s.minSkip, h.retry) {
		return
	}
	r := &s.run
	// After a part left out, the tail starts at the start of the bottom row,
	// and no single shift is pending.
	r.scan(h.tail, 0, h.skipped)
	k, ok := s.cut(r, h.lfs)
	var pen []byte
	if ok {
		lf := r.lfs[k]
		if lf.pen >= 0 {
			pen = appendSGRs(s.pen[:0], h.tail[lf.pen:lf.at])
		} else {
			pen = appendSGRs(append(s.pen[:0], h.pen...), h.tail[r.first:lf.at])
		}
		ok = len(pen) <= maxPen
	}
	if !ok {
		h.retry = 2 * len(h.tail)
		return
	}
	lf := r.lfs[k]
	cut := lf.at + 1
	if !h.skipped {
		h.head = append(h.head[:0], h.tail[:r.first]...)
	}
	if lf.char != 0 {
		h.char = lf.char
	}
	s.pen, h.pen = h.pen, pen
	h.skipped, h.lfs, h.retry = true, h.lfs+k+1, 0
	h.tail = h.tail[:copy(h.tail, h.tail[cut:])]
	s.skipped += cut - r.first
}

// takeIn gives the emulator the output held back, up to byte n of the tail.
func (s *Screen) takeIn(n int) {
	h := &s.held
	s.emuWrite(h.head)
	if h.skipped {
		s.sum = s.appendSummary(s.sum[:0], h.char, h.pen)
		s.emuWrite(s.sum)
	}
	s.feedExact(h.tail[:n])
}

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

// printable holds the printable ASCII characters.
var printable = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	return t
}()

// printableRun returns the index of the first byte of b from i on that is not
// a printable ASCII character.
func printableRun(b []byte, i int) int {
	for i < len(b) && printable[b[i]] {
		i++
	}
	return i
}

// plainPrefix returns how many bytes of p continue plain output that ends in t,
// and where the output ends after them.
func plainPrefix(p []byte, t plainTail) (int, plainTail) {
	for i := 0; i < len(p); i++ {
		if t == tailNone {
			if i = printableRun(p, i); i == len(p) {
				break
			}
		}
		switch b := p[i]; t {
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

// scan finds the run of plain output that starts at b[i]. With cont set, it
// continues one whose first printable character came before, and it starts at
// the start of a row.
func (r *plainRun) scan(b []byte, i int, cont bool) {
	r.first, r.lfs = -1, r.lfs[:0]
	home, pen, char := cont, -1, byte(0)
	if cont {
		r.first = i
	}
	for i < len(b) {
		switch c := b[i]; {
		case printable[c]:
			j := printableRun(b, i+1)
			if r.first < 0 {
				r.first = i + 1
			}
			if j-1 >= r.first {
				char = b[j-1]
			}
			home, i = false, j
			continue
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
// what scrolls off the screen unseen (see cut and appendSummary).
func (s *Screen) feed(b []byte) {
	start := 0 // b[start:] is not written yet
	for i := 0; i < len(b); {
		if c := b[i]; !s.parse.ground() || c < 0x20 && c != '\r' && c != '\n' && c != ansi.ESC || c >= 0x7f {
			s.parse.advance(c)
			i++
			continue
		}
		r := &s.run
		r.scan(b, i, false)
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
			if k, ok := s.cut(r, 0); ok && r.lfs[k].at+1-r.first >= s.minSkip {
				lf := r.lfs[k]
				cut, pen := lf.at+1, lf.pen
				if pen < 0 {
					pen = r.first
				}
				s.emuWrite(b[start:r.first])
				s.sum = s.appendSummary(s.sum[:0], lf.char, appendSGRs(s.pen[:0], b[pen:cut]))
				s.emuWrite(s.sum)
				s.skipped += cut - r.first
				start = cut
			}
		}
		i = r.end // a run starts and ends in the parser's ground state
	}
	s.emuWrite(b[start:])
}

// cut returns the line feed of run r after which the output that scrolls off
// unseen ends; ok is false when there is none. lfs line feeds came right
// before the run.
//
// The cut is after a line feed of the run that leaves the cursor at the start
// of the bottom row, followed by at least as many line feeds as the screen has
// rows. With the scroll region the whole screen, plain output never moves the
// cursor up, a line feed moves it down a row, and one on the bottom row
// scrolls: rows-1 line feeds bring the cursor to the bottom row, and the line
// feeds after the cut push every row that was on the screen at the cut off it.
func (s *Screen) cut(r *plainRun, lfs int) (k int, ok bool) {
	if r.first < 0 || s.margins[s.screenIndex()] {
		return 0, false
	}
	rows := s.emu.Height()
	m0 := 0 // the first line feed after the run's first printable character
	for m0 < len(r.lfs) && r.lfs[m0].at < r.first {
		m0++
	}
	for k := len(r.lfs) - 1 - rows; k >= m0 && lfs+k >= rows-2; k-- {
		if r.lfs[k].home {
			return k, true
		}
	}
	return 0, false
}

// appendSummary appends what stands in for output left out, of which nothing
// will be seen, and leaves the emulator as that output would for everything
// the output after it draws:
//
//   - the cursor at the start of the bottom row, with no wrap pending (CUP:
//     with the scroll region the whole screen, also in origin mode);
//   - the character that REP (CSI b) repeats: char, the last printable
//     character left out, if any; it is drawn where the output after it draws
//     over it or pushes it off;
//   - the pen: the SGR sequences in pen, those from the last one that resets
//     it on.
//
// The first printable character before the output left out went to the
// emulator as it was: it takes up a pending single shift (SS2, SS3). What the
// output left out would leave in the scrollback is never shown.
func (s *Screen) appendSummary(dst []byte, char byte, pen []byte) []byte {
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(s.emu.Height()), 10)
	dst = append(dst, ";1H"...)
	if char != 0 {
		dst = append(dst, char, '\r')
	}
	return append(dst, pen...)
}

// appendSGRs appends the SGR sequences of plain output b to dst.
func appendSGRs(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, ansi.ESC)
		if i < 0 {
			return dst
		}
		n, _ := sgrLen(b[i:])
		if n == 0 { // cut short at the end
			return dst
		}
		dst = append(dst, b[i:i+n]...)
		b = b[i+n:]
	}
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
