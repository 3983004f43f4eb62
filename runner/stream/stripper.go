package stream

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// Stripper turns a program's output into the text a terminal shows, so patterns and
// danger rules see what a person reads. Escape sequences are removed and the
// sequences that move the cursor or erase are carried out: horizontal motion
// becomes spaces over blank cells, backspace, carriage return and cursor motion
// overwrite what is there, erases and insertions change the line. Vertical motion
// moves between the rows of the last screenful (the terminal's height), with its
// scrolling region and its alternate screen; rows scrolled off the top are gone.
// CAN and SUB abort a sequence, a control character inside a control sequence is
// carried out, and ESC starts a new sequence, as in a DEC or xterm terminal. Wide
// characters take two columns.
//
// Output that only adds text at the end of the bottom row (nearly all output) is
// passed on at once. When a row changes behind the text already passed on for
// it, Append passes on, once the cursor leaves it, the row as it shows then, on a
// line of its own; Settle does so at once. The text of a row that did not change
// is never passed on twice: "\r" followed by the same text adds nothing, nor does
// a row drawn again as it was, and "\r\n" is one "\n".
//
// The Stripper keeps its state between writes, so a sequence or a character split
// across two reads is handled as a whole, and what Append passes on does not
// depend on where the output was split. Invalid UTF-8 passes through unchanged.
type Stripper struct {
	state stripState
	csi   csiParams
	// partial holds the first bytes of a UTF-8 character whose rest has not
	// arrived yet.
	partial  [utf8.UTFMax]byte
	npartial int
	line     termLine
}

type stripState uint8

const (
	sGround    stripState = iota
	sEscape               // after ESC
	sEscInter             // ESC followed by intermediate bytes (ESC ( B …)
	sCSI                  // ESC [ …
	sString               // OSC, DCS, SOS, PM, APC body, ended by BEL or ESC \
	sStringEsc            // ESC inside a string: ST if followed by '\'
)

// The C0 controls a terminal carries out, and the two that abort a sequence.
const (
	bs  = 0x08
	ht  = 0x09
	lf  = 0x0a
	vt  = 0x0b
	ff  = 0x0c
	cr  = 0x0d
	can = 0x18
	sub = 0x1a
	esc = 0x1b
	del = 0x7f
)

// printable marks the printable ASCII bytes, which a run copies as they are.
var printable = func() (t [256]bool) {
	for i := 0x20; i < del; i++ {
		t[i] = true
	}
	return t
}()

// SetWidth sets the number of columns of the terminal (80 when cols is not
// positive): a line longer than that wraps, and the cursor stops at its edge.
func (s *Stripper) SetWidth(cols int) {
	s.line.setWidth(cols)
}

// SetHeight sets the number of rows of the terminal (24 when rows is not
// positive): the rows the cursor can move back to.
func (s *Stripper) SetHeight(rows int) {
	s.line.setHeight(rows)
}

// Append strips src and appends the text to dst.
func (s *Stripper) Append(dst, src []byte) []byte {
	l := &s.line
	l.beginWrite(dst)
	i, n := 0, len(src)
	if s.npartial > 0 {
		dst, i = s.completeRune(dst, src)
	}
	for i < n {
		switch s.state {
		case sGround:
			// Copy a run of printable ASCII at once, eight bytes at a time while
			// no byte of the word is a control character or part of a UTF-8
			// sequence.
			j := i
			for j+8 <= n && plainWord(binary.LittleEndian.Uint64(src[j:])) {
				j += 8
			}
			for j < n && printable[src[j]] {
				j++
			}
			if j > i {
				if run := src[i:j]; l.conceal {
					dst = l.concealed(dst, run)
				} else if l.appends(len(run)) {
					l.col += len(run)
					l.end = l.col
					l.last = run[len(run)-1]
					dst = append(dst, run...)
				} else {
					dst = l.ascii(dst, run)
				}
				if i = j; i == n {
					break
				}
			}
			switch c := src[i]; {
			case c == esc && i+1 < n && src[i+1] == '[':
				// SGR, the most common sequence, changes no text unless it
				// conceals it (SGR 8): skip it here unless it may.
				j, eight := i+2, false
				for j < n && src[j]-0x30 < 0x10 {
					eight = eight || src[j] == '8'
					j++
				}
				if j < n && src[j] == 'm' {
					if eight || l.conceal {
						s.csi.feed(src[i+2 : j])
						dst = s.csiFinal(dst, 'm')
						s.csi.reset()
					}
					i = j + 1
					continue
				}
				i += 2
				s.state = sCSI
			case c == cr:
				i++
				l.col, l.wrapPending = 0, false
			case c == lf && !l.edited && !l.revisited:
				i++
				switch {
				case l.y+1 == l.scrollEnd && len(l.saved) == 0:
					l.pushBottom(len(dst))
				case !l.scrollBottom(dst):
					dst = l.lineFeed(dst)
					continue
				}
				dst = append(dst, '\n')
				l.startRow(dst, l.col, false)
			case c >= 0x80:
				dst, i = s.nonASCII(dst, src, i)
			default:
				i++
				dst = s.control(dst, c)
			}
		case sEscape:
			dst, i = s.escape(dst, src, i)
		case sEscInter:
			c := src[i]
			if c >= 0x80 {
				s.state = sGround // not a sequence: the byte is text
				continue
			}
			i++
			var done bool
			if dst, done = s.inSequence(dst, c); !done && c >= 0x30 {
				s.state = sGround
			}
		case sCSI:
			dst, i = s.csiBytes(dst, src, i)
		case sString:
			i = s.stringBytes(src, i)
		case sStringEsc:
			c := src[i]
			if c == '\\' {
				s.state = sGround
				i++
			} else {
				// ESC ends the string and starts a sequence of its own.
				s.state = sEscape
			}
		}
	}
	l.endWrite(dst)
	return dst
}

// nonASCII handles the UTF-8 character, or the lone byte, at src[i].
func (s *Stripper) nonASCII(dst, src []byte, i int) ([]byte, int) {
	r, size := utf8.DecodeRune(src[i:])
	if r == utf8.RuneError && size <= 1 {
		if !utf8.FullRune(src[i:]) {
			// The rest of the character is in the next write.
			s.npartial = copy(s.partial[:], src[i:])
			return dst, len(src)
		}
		return s.line.put(dst, src[i:i+1], 1), i + 1
	}
	return s.line.char(dst, src[i:i+size]), i + size
}

// completeRune finishes the character whose first bytes ended the last write.
func (s *Stripper) completeRune(dst, src []byte) ([]byte, int) {
	i := 0
	for s.npartial > 0 {
		var buf [2 * utf8.UTFMax]byte
		k := copy(buf[:], s.partial[:s.npartial])
		took := copy(buf[k:utf8.UTFMax], src[i:])
		b := buf[:k+took]
		if !utf8.FullRune(b) {
			s.npartial = copy(s.partial[:], b)
			return dst, len(src)
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			// The first byte starts no valid character: it stands alone.
			dst = s.line.put(dst, b[:1], 1)
			s.npartial = copy(s.partial[:], s.partial[1:s.npartial])
			continue
		}
		dst = s.line.char(dst, b[:size])
		i += size - s.npartial
		s.npartial = 0
	}
	return dst, i
}

// control carries out a C0 control character or DEL.
func (s *Stripper) control(dst []byte, c byte) []byte {
	l := &s.line
	switch c {
	case cr:
		l.moveTo(0)
	case lf, vt, ff:
		return l.newline(dst, l.col, true)
	case bs:
		l.moveTo(l.col - 1)
	case ht:
		l.tab(1)
	case esc:
		s.state = sEscape
	case can, sub:
		s.state = sGround
	}
	return dst
}

// inSequence handles the bytes that mean the same inside any escape or control
// sequence: CAN and SUB abort it, ESC starts a new one, other C0 controls are
// carried out and DEL is ignored. It reports whether c was one of them.
func (s *Stripper) inSequence(dst []byte, c byte) ([]byte, bool) {
	switch {
	case c == can || c == sub:
		s.state = sGround
	case c == esc:
		s.state = sEscape
	case c < 0x20:
		dst = s.control(dst, c)
	case c == del:
	default:
		return dst, false
	}
	return dst, true
}

// escape handles the byte after ESC.
func (s *Stripper) escape(dst, src []byte, i int) ([]byte, int) {
	c := src[i]
	if c >= 0x80 {
		// Not a sequence: the byte is text.
		s.state = sGround
		return dst, i
	}
	i++
	dst, done := s.inSequence(dst, c)
	switch {
	case done:
	case c == '[':
		s.state = sCSI
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		s.state = sString
	case c < 0x30:
		s.state = sEscInter
	default:
		s.state = sGround
		dst = s.escFinal(dst, c)
	}
	return dst, i
}

// escFinal carries out the two-byte escape ESC c.
func (s *Stripper) escFinal(dst []byte, c byte) []byte {
	l := &s.line
	switch c {
	case 'D': // IND
		return l.newline(dst, l.col, false)
	case 'M': // RI
		return l.reverseIndex(dst)
	case 'E': // NEL
		return l.newline(dst, 0, false)
	case '7': // DECSC
		l.save()
	case '8': // DECRC
		return l.restore(dst)
	case 'H': // HTS
		l.setTab()
	case 'c': // RIS
		return l.reset(dst)
	}
	return dst
}

// csiBytes reads a control sequence's parameters up to its final byte.
func (s *Stripper) csiBytes(dst, src []byte, i int) ([]byte, int) {
	start, n := i, len(src)
	for i < n {
		c := src[i]
		if c >= 0x20 && c < 0x40 {
			i++
			continue
		}
		if c >= 0x40 && c < del {
			s.state = sGround
			s.csi.feed(src[start:i])
			dst = s.csiFinal(dst, c)
			s.csi.reset()
			return dst, i + 1
		}
		s.csi.feed(src[start:i])
		if c >= 0x80 {
			// Not part of a sequence: the sequence ends and the byte is text.
			s.state = sGround
			s.csi.reset()
			return dst, i
		}
		dst, _ = s.inSequence(dst, c)
		i++
		if s.state != sCSI {
			s.csi.reset()
			return dst, i
		}
		start = i
	}
	s.csi.feed(src[start:])
	return dst, n
}

// stringBytes skips the body of a control string up to its end.
func (s *Stripper) stringBytes(src []byte, i int) int {
	for ; i < len(src); i++ {
		switch src[i] {
		case 0x07:
			s.state = sGround
			return i + 1
		case esc:
			s.state = sStringEsc
			return i + 1
		case can, sub:
			s.state = sGround
			return i + 1
		}
	}
	return i
}

// csiFinal carries out the control sequence that ends with f.
func (s *Stripper) csiFinal(dst []byte, f byte) []byte {
	p, l := &s.csi, &s.line
	if p.invalid || p.intermediate {
		return dst
	}
	if p.private != 0 {
		return s.privateFinal(dst, f)
	}
	n := p.count(0)
	switch f {
	case 'm': // SGR: of the pen, only concealing changes what shows
		p.sgr.param(p.cur, p.sub)
		if p.sgr.conceal != 0 {
			l.conceal = p.sgr.conceal > 0
		}
		return dst
	case '@': // ICH
		return l.insertBlanks(dst, n)
	case 'A': // CUU
		return l.moveRow(dst, l.up(n), l.col)
	case 'B', 'e': // CUD, VPR
		return l.moveRow(dst, l.below(n), l.col)
	case 'E': // CNL
		return l.moveRow(dst, l.below(n), 0)
	case 'F': // CPL
		return l.moveRow(dst, l.up(n), 0)
	case 'd': // VPA
		return l.moveRow(dst, l.rowAt(n), l.col)
	case 'H', 'f': // CUP, HVP
		return l.moveRow(dst, l.rowAt(n), p.count(1)-1)
	case 'S', 'T': // SU, SD
		l.ensureRows()
		return l.scroll(dst, l.marginTop, l.marginBottom, n, f == 'S', l.col)
	case 'L', 'M': // IL, DL
		return l.insertLines(dst, n, f == 'L')
	case 'r': // DECSTBM
		return l.setMargins(dst, p.value(0), p.value(1))
	case 'C', 'a': // CUF, HPR
		l.moveTo(l.col + n)
	case 'D': // CUB
		l.moveTo(l.col - n)
	case 'G', '`': // CHA, HPA
		l.moveTo(n - 1)
	case 'I': // CHT
		l.tab(n)
	case 'Z': // CBT
		l.backTab(n)
	case 'J': // ED
		return l.eraseInDisplay(dst, p.value(0))
	case 'K': // EL
		return l.eraseInLine(dst, p.value(0))
	case 'P': // DCH
		return l.deleteChars(dst, n)
	case 'X': // ECH
		return l.eraseChars(dst, n)
	case 'b': // REP
		return l.repeat(dst, n)
	case 'g': // TBC
		l.clearTabs(p.value(0))
	case 'h', 'l': // SM, RM
		if p.has(4) {
			l.insert = f == 'h'
		}
	case 's': // SCOSC
		l.save()
	case 'u': // SCORC
		return l.restore(dst)
	}
	return dst
}

// privateFinal carries out the DEC private control sequence that ends with f:
// the modes of autowrap, origin and the alternate screen, and the selective
// erases, which erase as ED and EL do.
func (s *Stripper) privateFinal(dst []byte, f byte) []byte {
	p, l := &s.csi, &s.line
	if p.private != '?' {
		return dst
	}
	p.noteAlt()
	switch f {
	case 'h', 'l':
		on := f == 'h'
		if p.has(7) {
			l.noAutowrap = !on
		}
		if p.has(6) {
			l.origin = on
			dst = l.moveRow(dst, l.rowAt(1), 0)
		}
		switch {
		case p.alt&alt1049 != 0:
			if on {
				l.save()
				return l.setAlternate(dst, true)
			}
			dst = l.setAlternate(dst, false)
			return l.restore(dst)
		case p.alt&alt1047 != 0 || p.has(47):
			return l.setAlternate(dst, on)
		}
	case 'J': // DECSED
		return l.eraseInDisplay(dst, p.value(0))
	case 'K': // DECSEL
		return l.eraseInLine(dst, p.value(0))
	}
	return dst
}

// Settle passes on the current line as it shows now if it changed behind the text
// already passed on; Append waits for the end of the line.
func (s *Stripper) Settle(dst []byte) []byte {
	return s.line.settle(dst)
}

// Redraws returns the rows passed on again by the last Append and the Settle
// calls after it: where in their output each is, and what of it did not change.
// The slice is valid until the next Append or Flush.
func (s *Stripper) Redraws() []Redraw {
	return s.line.redraws
}

// ScrolledOff returns how many rows have left the top of the screen as it
// scrolled up as a whole (a line feed on the bottom row, SU, DL at the top),
// since the Stripper was made.
func (s *Stripper) ScrolledOff() uint64 { return s.line.scrolledOff }

// CursorRow returns the cursor's row on the screen, from 0 at the top.
func (s *Stripper) CursorRow() int { return s.line.y }

// DrewElsewhere reports whether the last Append and the Settle calls after
// it drew only elsewhere than where the program waits: the cursor is back on
// the row it began on, the rows did not scroll over it, and the row shows
// what it showed. What they passed on is then rows of a clock, a spinner or a
// status line, drawn around a prompt they left as it was. atText reports
// whether that row holds text: a prompt may be there; a blank one is where a
// program parks the cursor as it draws a screen in several writes.
//
// A prompt asked again on the bottom row, after lines that scrolled the
// screen (the answer echoed, what the program said of it), shows what the
// prompt answered there showed, on the same row, but it is new output.
func (s *Stripper) DrewElsewhere() (elsewhere, atText bool) {
	l := &s.line
	if l.y != l.startY || l.startScrolled {
		return false, false
	}
	l.nowText = l.rowText(l.nowText[:0])
	return bytes.Equal(l.nowText, l.startText), len(l.startText) > 0
}

// Flush returns the text held back at the end of the stream: a line that changed,
// and the first bytes of a character that never ended.
func (s *Stripper) Flush(dst []byte) []byte {
	l := &s.line
	l.beginWrite(dst)
	for k := range s.npartial {
		dst = l.put(dst, s.partial[k:k+1], 1)
	}
	s.npartial = 0
	l.endWrite(dst)
	return l.settle(dst)
}

// plainWord reports whether every byte of the little-endian word w is printable
// ASCII: none is below 0x20, DEL or 0x80 and above.
func plainWord(w uint64) bool {
	// A byte below 0x20 gets its high bit from the subtraction, DEL from the
	// addition, and one of 0x80 and above has it already. A borrow or a carry
	// between bytes only comes from a byte flagged itself.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return ((w-ones*0x20)|(w+ones)|w)&highs == 0
}
