package notify

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clai-sh/clai/runner/ask"
)

// TestExcerptBounded: however much the screen holds, a notification carries
// its last ExcerptLines lines, each at most ExcerptWidth characters, with no
// control character that a terminal showing it would act on.
func TestExcerptBounded(t *testing.T) {
	t.Parallel()
	line := "\x1b]52;c;AAAA\x07" + strings.Repeat("é", 10000)
	screen := strings.Repeat(line+"\n", 1000) + "last line\n\n"
	q := &ask.Question{ID: "q", Reason: ask.Prompt, Text: "Go?", Screen: screen}
	n := build("s-1", "question", ask.Update{Kind: ask.UpdateQuestion, Question: q}, ask.Session{ID: "s"})
	lines := strings.Split(n.Question.Screen, "\n")
	if len(lines) != ExcerptLines || lines[len(lines)-1] != "last line" {
		t.Fatalf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > ExcerptWidth+1 || strings.ContainsAny(l, "\x1b\x07") {
			t.Fatalf("a line of %d characters, or with a control character: %q", utf8.RuneCountInString(l), l[:40])
		}
	}
	if q.Screen != screen {
		t.Error("the question of the update was changed")
	}
}
