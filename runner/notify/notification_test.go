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

// TestSuggestionsComeFirst: a question's suggestions are said before its
// options, and their commands come before the others; a suggested line that
// starts with a dash, or holds a quote, is typed as it is.
func TestSuggestionsComeFirst(t *testing.T) {
	t.Parallel()
	q := &ask.Question{ID: "q2", Reason: ask.Prompt, Text: "Overwrite? [y/N]", Options: []ask.Option{{Label: "y"}, {Label: "N"}},
		Suggestions: []ask.Suggestion{
			{Text: "N", Option: true, Confidence: 0.75, Count: 3, Source: "answers"},
			{Text: "-it's", Confidence: 0.25, Count: 1, Source: "answers"},
		}}
	n := build("s-1", "question", ask.Update{Kind: ask.UpdateQuestion, Question: q}, ask.Session{ID: "s1"})
	want := "Overwrite? [y/N]\nsuggested: N (given 3 times, 75%), -it's (given 1 times, 25%)\noptions: y, N\n--- answer ---\n" +
		"clai answer --question q2 --choose N s1\n" +
		"clai answer --question q2 s1 -- '-it'\\''s'\n" +
		"clai answer --question q2 s1 TEXT\n" +
		"clai answer --question q2 --choose y s1\nclai answer --question q2 --choose N s1"
	if got := n.Message(); got != want {
		t.Fatalf("the message:\n%s\nwant:\n%s", got, want)
	}
}

// TestTheTitleNamesTheMachine: a run whose session names its machine (the
// hub tells of runs of several) is named with it in the title.
func TestTheTitleNamesTheMachine(t *testing.T) {
	t.Parallel()
	q := &ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Go?"}
	n := build("s-1", "question", ask.Update{Kind: ask.UpdateQuestion, Question: q}, ask.Session{ID: "s", Name: "deploy", Host: "build-box"})
	if n.Title != "clai: deploy on build-box asks" {
		t.Fatalf("the title: %q", n.Title)
	}
	n = build("s-2", "question", ask.Update{Kind: ask.UpdateQuestion, Question: q}, ask.Session{ID: "s", Name: "deploy"})
	if n.Title != "clai: deploy asks" {
		t.Fatalf("the title without a machine: %q", n.Title)
	}
}
