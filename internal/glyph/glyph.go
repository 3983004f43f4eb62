// Package glyph says how a terminal shows the characters that are not plainly
// printed: as blank cells, or as nothing at all. Matching uses it, in the stream
// and on the screen alike, so that patterns and danger rules see what a person
// sees: `rm`, a zero-width space, ` -rf /` reads as `rm -rf /`, and so does `rm`
// with an em space.
package glyph

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// OneLine is s as one line of a listing for a terminal: each character that
// is no plain text there (C0 and C1 controls, DEL, the line and paragraph
// separators, the marks and overrides that turn text around) a blank, cut to
// max characters with an ellipsis; "-" when empty. What a program or a
// history holds cannot move the cursor, start a new line or reorder the
// listing around it.
func OneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if Control(r) {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}

// Control reports whether r is a control character, breaks a line or
// changes the direction of text: what a listing must not pass to a terminal,
// and what ask.Visible shows as a picture or an escape.
func Control(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
