package runner_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
)

// TestSuggestionsArePartOfTheQuestion: the suggestions WithSuggestions gives
// a question are in it before anyone hears of it: the watchers' update, the
// session, and the report.
func TestSuggestionsArePartOfTheQuestion(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var asked []string
	suggest := func(q ask.Question) []ask.Suggestion {
		asked = append(asked, q.ID+" "+q.Text)
		return []ask.Suggestion{{Text: "N", Option: true, Confidence: 0.75, Count: 3, Source: "answers"}}
	}
	d, updates, reports := deskRun(t, ctx, `
version: 1
name: suggested
spawn: {command: [%q, -q, "Deploy to production? [y/N] "]}
settings: {settle: 50ms}
timeouts: {prompt: 1m}
`, []any{prompter}, runner.WithRemote(true), runner.WithSuggestions(suggest))
	q := nextQuestion(t, updates)
	want := "[{N true 0.75 3 answers}]"
	if got := fmt.Sprint(q.Suggestions); got != want {
		t.Fatalf("the question's update carries %s, want %s", got, want)
	}
	if s := d.Session(); s.Question == nil || fmt.Sprint(s.Question.Suggestions) != want {
		t.Fatalf("the session's question: %+v", s.Question)
	}
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Choose: "N", By: "alice", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	rep := <-reports
	if len(rep.Questions) != 1 || fmt.Sprint(rep.Questions[0].Suggestions) != want {
		t.Fatalf("the report's questions: %+v", rep.Questions)
	}
	if fmt.Sprint(asked) != "[q1 Deploy to production? [y/N]]" {
		t.Fatalf("suggest was asked about %q", asked)
	}
}
