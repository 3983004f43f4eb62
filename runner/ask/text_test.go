package ask_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
)

// A text answer is one line of characters a terminal shows as themselves;
// the reason names the character that is refused.
func TestCheckTextRefusesWhatATerminalDoesNotShow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"CSI", "y\u009b2J", "U+009B (a control character)"},
		{"next line", "y\u0085rm", "U+0085 (a control character)"},
		{"bidi override", "\u202eyes", "U+202E (a format character"},
		{"zero-width space", "y\u200b", "U+200B (a format character"},
		{"line separator", "a\u2028b", "U+2028 (a line or paragraph separator)"},
		{"newline", "y\nrm -rf /", "U+000A (a line break)"},
		{"carriage return", "y\r", "U+000D (a line break)"},
		{"escape", "\x1b[2J", "U+001B (a control character)"},
		{"tab", "a\tb", "U+0009 (a control character)"},
		{"delete", "a\x7f", "U+007F (a control character)"},
		{"not UTF-8", "a\xffb", "valid UTF-8"},
		{"too long", strings.Repeat("a", ask.MaxText+1), "at most 4096 bytes"},
	} {
		err := ask.CheckText(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckText(%q) = %v, want an error saying %q", tc.name, tc.text, err, tc.want)
		}
	}
}

func TestCheckTextTakesPrintableLines(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "y", "demo app", "café ☕ 日本語", "אישור", strings.Repeat("a", ask.MaxText)} {
		if err := ask.CheckText(text); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", text, err)
		}
	}
}
