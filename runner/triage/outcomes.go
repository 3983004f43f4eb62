package triage

import (
	"context"
	"sync"

	"github.com/clai-sh/clai/runner/ask"
)

// Outcomes keeps how the latest questions of a run were decided by one who
// may answer them (the answerer, auto_answer), for the Func of those who
// tell people of them: Decided records a decision, Wait is the Func. Each
// notification target and phone channel asks on its own, before or after
// the decision: a question is remembered from its first mention, and the
// oldest are forgotten beyond the bound.
type Outcomes struct {
	limit int

	mu sync.Mutex
	// byID are the outcomes by question id; order their ids, oldest first.
	byID  map[string]*outcome
	order []string
}

// outcome is a question's decision, once done is closed.
type outcome struct {
	done     chan struct{}
	summary  string
	answered bool
}

// NewOutcomes returns the outcomes of the latest limit questions (at least
// one).
func NewOutcomes(limit int) *Outcomes {
	return &Outcomes{limit: max(limit, 1), byID: map[string]*outcome{}}
}

// Decided records how question id was decided: its one-line summary (""
// for none) and whether it was answered. The first decision stands.
func (o *Outcomes) Decided(id, summary string, answered bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.outcome(id)
	select {
	case <-out.done:
		return
	default:
	}
	out.summary, out.answered = summary, answered
	close(out.done)
}

// Wait returns how q was decided once it is, or "" and false when ctx ends
// first; it is a Func.
func (o *Outcomes) Wait(ctx context.Context, q ask.Question) (summary string, answered bool) {
	o.mu.Lock()
	out := o.outcome(q.ID)
	o.mu.Unlock()
	select {
	case <-out.done:
		return out.summary, out.answered
	case <-ctx.Done():
		return "", false
	}
}

// outcome returns the outcome of question id, made on first use; the
// oldest is forgotten beyond the limit. o.mu is held.
func (o *Outcomes) outcome(id string) *outcome {
	if out, ok := o.byID[id]; ok {
		return out
	}
	out := &outcome{done: make(chan struct{})}
	o.byID[id] = out
	o.order = append(o.order, id)
	if len(o.order) > o.limit {
		delete(o.byID, o.order[0])
		o.order = o.order[1:]
	}
	return out
}
