package runner

import "encoding/binary"

// Stripper removes terminal control sequences from a byte stream, so patterns see the
// text a person reads. It keeps its state between writes, so a sequence split across
// two reads is still removed. CSI, OSC, DCS, SOS, PM and APC sequences, two-byte
// escapes and C0 controls other than tab and newline are dropped; "\r\n" and a lone
// "\r" become "\n". Invalid UTF-8 passes through unchanged.
type Stripper struct {
	state stripState
	// pendingCR is set after a "\r" whose following byte has not been seen yet.
	pendingCR bool
}

// plain marks the bytes copied as they are: all but C0 controls (except tab and
// newline) and DEL.
var plain = func() (t [256]bool) {
	for i := range t {
		t[i] = i >= 0x20 && i != 0x7f || i == '\n' || i == '\t'
	}
	return t
}()

type stripState uint8

const (
	sGround    stripState = iota
	sEscape               // after ESC
	sEscInter             // ESC followed by intermediate bytes (ESC ( B …)
	sCSI                  // ESC [ …
	sString               // OSC, DCS, SOS, PM, APC body, ended by BEL or ESC \
	sStringEsc            // ESC inside a string: ST if followed by '\'
)

// Append strips src and appends the text to dst.
func (s *Stripper) Append(dst, src []byte) []byte {
	i, n := 0, len(src)
	for i < n {
		switch s.state {
		case sGround:
			// Copy a run of plain bytes at once, eight at a time while no byte
			// in the word is a control character.
			j := i
			for j+8 <= n && !hasControl(binary.LittleEndian.Uint64(src[j:])) {
				j += 8
			}
			for j < n && plain[src[j]] {
				j++
			}
			if j > i {
				if s.pendingCR {
					s.pendingCR = false
					if src[i] != '\n' {
						dst = append(dst, '\n')
					}
				}
				dst = append(dst, src[i:j]...)
				i = j
				if i == n {
					return dst
				}
			}
			c := src[i]
			i++
			if s.pendingCR && c != '\r' {
				s.pendingCR = false
				dst = append(dst, '\n')
			}
			switch c {
			case 0x1b:
				s.state = sEscape
			case '\r':
				s.pendingCR = true
			}
		case sEscape:
			c := src[i]
			i++
			switch {
			case c == '[':
				s.state = sCSI
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				s.state = sString
			case c >= 0x20 && c <= 0x2f:
				s.state = sEscInter
			case c == 0x1b:
				// ESC ESC: stay.
			default:
				s.state = sGround
			}
		case sEscInter:
			if c := src[i]; c < 0x20 || c > 0x2f {
				s.state = sGround
			}
			i++
		case sCSI:
			// Skip parameters and intermediates up to the final byte.
			for i < n {
				c := src[i]
				i++
				if c >= 0x40 && c <= 0x7e {
					s.state = sGround
					break
				}
				if c == 0x1b {
					s.state = sEscape
					break
				}
			}
		case sString:
			for i < n {
				c := src[i]
				i++
				if c == 0x07 {
					s.state = sGround
					break
				}
				if c == 0x1b {
					s.state = sStringEsc
					break
				}
			}
		case sStringEsc:
			c := src[i]
			i++
			if c == '\\' {
				s.state = sGround
			} else if c != 0x1b {
				s.state = sString
			}
		}
	}
	return dst
}

// hasControl reports whether any byte of the little-endian word w is below 0x20
// or is DEL (bytes of UTF-8 sequences, 0x80 and above, are never flagged).
func hasControl(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (w - ones*0x20) & ^w & highs
	del := w ^ (ones * 0x7f)
	del = (del - ones) & ^del & highs
	return below|del != 0
}

// Flush returns the text held back at the end of the stream (a final "\r").
func (s *Stripper) Flush(dst []byte) []byte {
	if s.pendingCR {
		s.pendingCR = false
		dst = append(dst, '\n')
	}
	return dst
}
