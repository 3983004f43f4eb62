package cast

import "unicode/utf8"

// decodeUTF8 appends src to dst as valid UTF-8: each maximal ill-formed
// subsequence (the longest prefix of a well-formed sequence that ends too
// soon, or else one byte) becomes one U+FFFD, as in the decoders of Python
// and Rust that asciinema uses. Unless final, an incomplete sequence at the
// end of src is left out: pending is its length, for the caller to put in
// front of the next chunk (a character split between two reads is kept whole).
func decodeUTF8(dst, src []byte, final bool) (out []byte, pending int) {
	if utf8.Valid(src) {
		return append(dst, src...), 0
	}
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r != utf8.RuneError || size > 1 {
			dst = append(dst, src[i:i+size]...)
			i += size
			continue
		}
		n := wellFormedPrefix(src[i:])
		if n > 0 && i+n == len(src) && !final {
			return dst, n
		}
		dst = append(dst, "\uFFFD"...)
		i += max(n, 1)
	}
	return dst, 0
}

// wellFormedPrefix returns how many bytes at the start of b begin a
// well-formed UTF-8 sequence of two bytes or more (Unicode table 3-7), or 0 if
// b[0] cannot start one.
func wellFormedPrefix(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF) // allowed range of the second byte
	var need int
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 2
	case c == 0xE0:
		need, lo = 3, 0xA0
	case c == 0xED:
		need, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 3
	case c == 0xF0:
		need, lo = 4, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 4
	case c == 0xF4:
		need, hi = 4, 0x8F
	default:
		return 0
	}
	n := 1
	for n < need && n < len(b) && b[n] >= lo && b[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}
