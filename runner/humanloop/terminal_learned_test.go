package humanloop_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/clai-sh/clai/internal/terminaltest"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/humanloop"
)

// TestTerminalAnswerIsLearned: a person answers at the run's own terminal,
// in two runs, erasing a typo; the third run's question carries that
// answer. The password they type where the program does not echo, and a
// line typed after an arrow key, are never learned.
func TestTerminalAnswerIsLearned(t *testing.T) {
	iso := isolate(t)
	suggest := "suggest: {sources: [answers]}\n"
	for run := 1; run <= 2; run++ {
		person, tty := terminaltest.Open(t, 24, 80)
		r := iso.startRun(t, learnsPlaybook(t, run, suggest), humanloop.Options{
			Runner: []runner.Option{runner.WithTerminal(&runner.Terminal{In: tty, Out: tty})},
		})
		for _, step := range []struct{ id, expect, send string }{
			{"q1", "[yes/no] ", "yxs\x7f\x7fes\r"},
			{"q2", "Password: ", "hunter2-secret\r"},
			{"q3", "Release name: ", "\x1b[Aspring\r"},
		} {
			person.WaitFor(step.expect, 1)
			// The person answers the question once it is open.
			r.waitQuestion(t, step.id)
			person.Types(step.send)
		}
		r.waitDone(t)
	}
	r := iso.startRun(t, learnsPlaybook(t, 3, suggest), humanloop.Options{Headless: true, Remote: true})
	s, _ := r.waitQuestion(t, "q1")
	want, _ := json.Marshal([]ask.Suggestion{{Text: "yes", Option: true, Confidence: 1, Count: 2, Source: "answers"}})
	if got, _ := json.Marshal(s.Question.Suggestions); string(got) != string(want) {
		t.Fatalf("the third run's question carries %s, want %s", got, want)
	}
	r.answer(t, "q1", "", "yes")
	r.answer(t, "q2", "pw", "")
	s, _ = r.waitQuestion(t, "q3")
	if len(s.Question.Suggestions) != 0 {
		t.Fatalf("a line typed after an arrow key was learned: %+v", s.Question.Suggestions)
	}
	r.answer(t, "q3", "x", "")
	r.waitDone(t)
	for _, name := range []string{"learned.db", "learned.db-wal"} {
		if data, _ := os.ReadFile(filepath.Join(iso.dir, "clai", name)); bytes.Contains(data, []byte("hunter2")) {
			t.Fatalf("%s holds the password typed", name)
		}
	}
}
