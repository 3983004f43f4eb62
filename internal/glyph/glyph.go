// Package glyph says how a terminal shows the characters that are not plainly
// printed: as blank cells, or as nothing at all. Matching uses it, in the stream
// and on the screen alike, so that patterns and danger rules see what a person
// sees: `rm`, a zero-width space, ` -rf /` reads as `rm -rf /`, and so does `rm`
// with an em space.
package glyph

import "unicode"

// Blank reports whether r shows as empty cells although it is not the ASCII
// space: the other space separators (no-break space, em space, ideographic
// space …) and the blank letters of some scripts (the Hangul fillers, the
// braille blank). Matching reads each as a space.
func Blank(r rune) bool {
	switch r {
	case ' ':
		return false
	case 0x115f, 0x1160, 0x3164, 0xffa0, 0x2800:
		return true
	}
	return r >= 0x80 && unicode.Is(unicode.Zs, r)
}

// Invisible reports whether r shows as nothing: a format character (the
// zero-width space and joiners, the soft hyphen, directional marks and
// overrides, the byte order mark), a variation selector, or another character
// Unicode says a renderer ignores. Matching leaves each out.
func Invisible(r rune) bool {
	if r < 0xad || Blank(r) {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// Plain reports whether s holds no character that Blank or Invisible changes,
// so it is shown as it is.
func Plain(s string) bool {
	for _, r := range s {
		if r >= 0xa0 && (Blank(r) || Invisible(r)) {
			return false
		}
	}
	return true
}
