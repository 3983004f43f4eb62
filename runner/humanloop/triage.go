package humanloop

import (
	"time"

	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/suggest/learned"
	"github.com/clai-sh/clai/runner/triage"
)

// runTriage is how those who tell people of a run's questions (the
// notifications, the phone channels) learn first whether the run answers
// them itself.
type runTriage struct {
	// decide decides a question; nil when nothing answers questions.
	decide triage.Func
	// wait bounds the wait for decide.
	wait time.Duration
}

// newRunTriage asks the answerer (nil: none) and the learner's auto_answer
// (nil: none) together: a question either answered is told to nobody, one
// both leave to people is told with the answerer's summary. The wait is the
// longer of theirs: a call of the model and a second, auto_answer's own.
func newRunTriage(ans *answerer.Answerer, learner *learned.Learner) runTriage {
	var t runTriage
	var funcs []triage.Func
	if ans != nil {
		funcs = append(funcs, ans.Triage)
		t.wait = ans.Timeout() + time.Second
	}
	if learner != nil && learner.AutoAnswers() {
		funcs = append(funcs, learner.Triage)
		t.wait = max(t.wait, learner.TriageWait())
	}
	t.decide = triage.All(funcs...)
	return t
}
