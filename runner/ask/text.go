package ask

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxText is the longest text answer, in bytes.
const MaxText = 4 << 10

// CheckText says why text cannot be typed as a text answer, or nil when it
// can. The rule is the same for a person, a model and a learned answer: one
// line of at most MaxText bytes of valid UTF-8 that holds no control
// character (C0, DEL or C1: no newline, tab, escape, U+009B CSI, U+0085), no
// format character (Unicode's Cf: bidi overrides and isolates such as
// U+202E, zero-width characters such as U+200B, soft hyphens) and no line
// or paragraph separator (U+2028, U+2029). What a terminal would not show
// as itself is never typed as text; keys are the way to send control
// characters.
func CheckText(text string) error {
	if len(text) > MaxText {
		return fmt.Errorf("a text answer is at most %d bytes, not %d", MaxText, len(text))
	}
	if !utf8.ValidString(text) {
		return errors.New("a text answer is valid UTF-8 text, and this one is not")
	}
	for i, r := range text {
		if kind := hiddenKind(r); kind != "" {
			return fmt.Errorf("a text answer is one line of visible characters: it holds %U (%s) at byte %d; send keys for control characters", r, kind, i)
		}
	}
	return nil
}

// hiddenKind names the kind of character r is when a terminal would not show
// it as itself (a control, format or separator character); "" otherwise.
func hiddenKind(r rune) string {
	switch {
	case r == '\n' || r == '\r':
		return "a line break"
	case unicode.Is(unicode.Cc, r):
		return "a control character"
	case unicode.Is(unicode.Cf, r):
		return "a format character: a bidi control or an invisible one"
	case unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
		return "a line or paragraph separator"
	}
	return ""
}

// Hidden reports whether a terminal would not show r as itself: a control
// character, a format character (bidi controls, zero-width characters) or a
// line or paragraph separator. CheckText refuses a text that holds one.
func Hidden(r rune) bool { return hiddenKind(r) != "" }

// OneLine makes s one line of printable characters, at most n of them, for
// a message: what is hidden shows as a blank, blanks run together.
func OneLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if Hidden(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// Labels are the options' labels, in order.
func Labels(opts []Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Label
	}
	return out
}
