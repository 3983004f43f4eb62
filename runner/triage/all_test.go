package triage_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/triage"
)

// result is what a Func returned.
type result struct {
	summary  string
	answered bool
}

// decideAsync asks decide about question id off the test's goroutine.
func decideAsync(ctx context.Context, decide triage.Func, id string) <-chan result {
	out := make(chan result, 1)
	go func() {
		s, a := decide(ctx, *question(id).Question)
		out <- result{s, a}
	}()
	return out
}

// got is the result decided; a generous deadline only catches a hang.
func got(t *testing.T, r <-chan result) result {
	t.Helper()
	select {
	case v := <-r:
		return v
	case <-time.After(60 * time.Second):
		t.Fatal("the combined triage never decided")
	}
	return result{}
}

// A question one of them answers is answered at once, while the other still
// thinks, and the other's wait ends.
func TestAllAnsweredAsSoonAsOneAnswered(t *testing.T) {
	t.Parallel()
	model, learned := newFakeAnswerer("q1"), newFakeAnswerer("q1")
	stopped := make(chan struct{})
	slow := func(ctx context.Context, q ask.Question) (string, bool) {
		defer close(stopped)
		return model.decide(ctx, q)
	}
	r := decideAsync(t.Context(), triage.All(slow, learned.decide), "q1")
	<-model.asked
	<-learned.asked
	learned.verdicts["q1"] <- verdict{answered: true}
	if v := got(t, r); !v.answered {
		t.Fatalf("decided %+v, want answered", v)
	}
	select {
	case <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("the model's wait never ended")
	}
}

// A question each leaves to people is left once the last decided, with the
// first summary in the order given, whoever decided first.
func TestAllLeftToPeopleOnceEachLeftIt(t *testing.T) {
	t.Parallel()
	model, learned := newFakeAnswerer("q1"), newFakeAnswerer("q1")
	r := decideAsync(t.Context(), triage.All(model.decide, learned.decide), "q1")
	<-model.asked
	<-learned.asked
	learned.verdicts["q1"] <- verdict{summary: "the learner's"}
	model.verdicts["q1"] <- verdict{summary: "the model's"}
	if v := got(t, r); v != (result{summary: "the model's"}) {
		t.Fatalf("decided %+v, want the model's summary, not answered", v)
	}
}

// The context's end leaves the question to people.
func TestAllLeftToPeopleWhenTheWaitEnds(t *testing.T) {
	t.Parallel()
	model, learned := newFakeAnswerer("q1"), newFakeAnswerer("q1")
	ctx, cancel := context.WithCancel(t.Context())
	r := decideAsync(ctx, triage.All(model.decide, learned.decide), "q1")
	<-model.asked
	<-learned.asked
	cancel()
	if v := got(t, r); v != (result{}) {
		t.Fatalf("decided %+v, want left to people", v)
	}
}

// A nil Func is left out: none is nil, one is itself.
func TestAllLeavesOutNil(t *testing.T) {
	t.Parallel()
	if triage.All() != nil || triage.All(nil, nil) != nil {
		t.Fatal("All of nothing is not nil")
	}
	only := newFakeAnswerer("q1")
	only.verdicts["q1"] <- verdict{summary: "s", answered: true}
	if v := got(t, decideAsync(t.Context(), triage.All(nil, only.decide), "q1")); v != (result{"s", true}) {
		t.Fatalf("decided %+v, want the only one's decision", v)
	}
}

// On a desk, the combined triage withholds a question either answered and
// hands over one both left to people, with the first one's summary; one
// neither decides is handed over after the wait.
func TestDeskWithAllWithholdsWhatEitherAnswered(t *testing.T) {
	t.Parallel()
	desk := newFakeDesk()
	model, learned := newFakeAnswerer("q1", "q2"), newFakeAnswerer("q1", "q2")
	out := triage.Desk(desk, triage.All(model.decide, learned.decide), time.Hour).Watch(t.Context())
	desk.in <- question("q1")
	<-model.asked
	<-learned.asked
	learned.verdicts["q1"] <- verdict{answered: true}
	desk.in <- closed("q1")
	desk.in <- question("q2")
	<-model.asked
	<-learned.asked
	learned.verdicts["q2"] <- verdict{}
	model.verdicts["q2"] <- verdict{summary: "wants a release name"}
	if u := next(t, out); describe(u) != `question q2 "wants a release name"` {
		t.Fatalf("handed over %s, want q2 with the model's summary", describe(u))
	}
	desk.in <- end
	close(desk.in)
	if got, want := rest(t, out), []string{"end"}; !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}

	desk = newFakeDesk()
	model, learned = newFakeAnswerer("q1"), newFakeAnswerer("q1")
	out = triage.Desk(desk, triage.All(model.decide, learned.decide), time.Millisecond).Watch(t.Context())
	desk.in <- question("q1")
	if u := next(t, out); describe(u) != `question q1 ""` {
		t.Fatalf("handed over %s, want q1 after the wait", describe(u))
	}
}
