package ask

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/glyph"
)

// Visible shows text on one line with what a person could not read as it
// is made visible: ⏎ for a carriage return (a typed Enter), ␤ for a line
// feed, ⇥ for a tab, ␛ for escape, the Unicode control pictures for the
// other C0 controls, ␡ for DEL, and \uXXXX for C1 controls, line and
// paragraph separators and the characters that change the direction of
// text (bidi overrides, isolates and marks). Invalid UTF-8 shows as U+FFFD.
// Reports, notifications and the phone channels show typed keys with it.
func Visible(s string) string { return showControls(s, false) }

// VisibleBlock is Visible for a block of text: line breaks stay line breaks
// (a CR LF pair is one), tabs stay tabs, a lone carriage return shows as ⏎.
func VisibleBlock(s string) string { return showControls(s, true) }

func showControls(s string, block bool) string {
	if !strings.ContainsFunc(s, glyph.Control) && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i, r := range s {
		switch {
		case block && r == '\n':
			b.WriteByte('\n')
		case block && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// part of a line break
		case block && r == '\t':
			b.WriteByte('\t')
		case r == '\r':
			b.WriteRune('⏎')
		case r == '\n':
			b.WriteRune('␤')
		case r == '\t':
			b.WriteRune('⇥')
		case r == 0x1b:
			b.WriteRune('␛')
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		case glyph.Control(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
