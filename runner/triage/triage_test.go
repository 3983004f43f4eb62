package triage_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/triage"
)

// fakeDesk hands its watcher the updates a test sends in; it remembers the
// kinds WatchKinds was asked for.
type fakeDesk struct {
	in    chan ask.Update
	kinds []string
}

func newFakeDesk() *fakeDesk { return &fakeDesk{in: make(chan ask.Update, 64)} }

func (d *fakeDesk) Session() ask.Session { return ask.Session{ID: "s1"} }
func (d *fakeDesk) Screen() ask.Screen   { return ask.Screen{} }
func (d *fakeDesk) Answer(context.Context, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "fake"}
}
func (d *fakeDesk) Watch(context.Context) <-chan ask.Update { return d.in }
func (d *fakeDesk) WatchKinds(_ context.Context, kinds ...string) <-chan ask.Update {
	d.kinds = kinds
	return d.in
}

// fakeAnswerer decides each question as the test tells it to, when it
// tells it to; asked says which question it was asked about.
type fakeAnswerer struct {
	asked    chan string
	verdicts map[string]chan verdict
}

type verdict struct {
	summary  string
	answered bool
}

func newFakeAnswerer(ids ...string) *fakeAnswerer {
	a := &fakeAnswerer{asked: make(chan string, 8), verdicts: map[string]chan verdict{}}
	for _, id := range ids {
		a.verdicts[id] = make(chan verdict, 1)
	}
	return a
}

func (a *fakeAnswerer) decide(ctx context.Context, q ask.Question) (string, bool) {
	a.asked <- q.ID
	select {
	case v := <-a.verdicts[q.ID]:
		return v.summary, v.answered
	case <-ctx.Done():
		return "", false
	}
}

func question(id string) ask.Update {
	return ask.Update{Kind: ask.UpdateQuestion, Question: &ask.Question{ID: id, Text: "Continue? [Y/n]"}}
}

func closed(id string) ask.Update {
	return ask.Update{Kind: ask.UpdateClosed, Question: &ask.Question{ID: id, Closed: &ask.Closed{How: ask.Answered}}}
}

var end = ask.Update{Kind: ask.UpdateEnd, Outcome: "done"}

// next is the next update handed over; a generous deadline only catches a
// hang.
func next(t *testing.T, out <-chan ask.Update) ask.Update {
	t.Helper()
	select {
	case u, ok := <-out:
		if !ok {
			t.Fatal("the watch closed early")
		}
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("nothing was handed over")
	}
	return ask.Update{}
}

// rest is what is handed over until the watch closes.
func rest(t *testing.T, out <-chan ask.Update) []string {
	t.Helper()
	var got []string
	for {
		select {
		case u, ok := <-out:
			if !ok {
				return got
			}
			got = append(got, describe(u))
		case <-time.After(60 * time.Second):
			t.Fatalf("the watch never closed after %v", got)
		}
	}
}

func describe(u ask.Update) string {
	if u.Question != nil {
		return fmt.Sprintf("%s %s %q", u.Kind, u.Question.ID, u.Question.Summary)
	}
	return u.Kind
}

// A question the answerer takes is handed over to nobody, nor its closing;
// while it is decided, other updates pass; a question it leaves to people
// is handed over once it said so, with its summary.
func TestAnsweredQuestionIsWithheldDeclinedOneHandedOver(t *testing.T) {
	t.Parallel()
	desk, ans := newFakeDesk(), newFakeAnswerer("q1", "q2")
	out := triage.Desk(desk, ans.decide, time.Hour).Watch(t.Context())

	desk.in <- question("q1")
	if id := <-ans.asked; id != "q1" {
		t.Fatalf("the answerer was asked about %s", id)
	}
	desk.in <- ask.Update{Kind: ask.UpdateScreen}
	if u := next(t, out); u.Kind != ask.UpdateScreen {
		t.Fatalf("handed over %s while q1 was decided, want the screen", describe(u))
	}
	ans.verdicts["q1"] <- verdict{answered: true}
	desk.in <- closed("q1")
	desk.in <- question("q2")
	<-ans.asked
	ans.verdicts["q2"] <- verdict{summary: "the installer wants to go on"}
	if u := next(t, out); describe(u) != `question q2 "the installer wants to go on"` {
		t.Fatalf("handed over %s, want q2 with its summary", describe(u))
	}
	desk.in <- closed("q2")
	desk.in <- end
	close(desk.in)
	if got, want := rest(t, out), []string{`closed q2 ""`, "end"}; !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}
}

// A question that closes before the answerer decided (someone answered it
// at the terminal) is handed over to nobody, nor its closing.
func TestQuestionClosedBeforeItWasDecidedIsWithheld(t *testing.T) {
	t.Parallel()
	desk, ans := newFakeDesk(), newFakeAnswerer("q1")
	out := triage.Desk(desk, ans.decide, time.Hour).Watch(t.Context())
	desk.in <- question("q1")
	<-ans.asked
	desk.in <- closed("q1")
	desk.in <- end
	close(desk.in)
	if got, want := rest(t, out), []string{"end"}; !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}
}

// An answerer that does not decide within the wait leaves the question to
// people: it is handed over, without a summary.
func TestUndecidedQuestionIsHandedOverAfterTheWait(t *testing.T) {
	t.Parallel()
	desk, ans := newFakeDesk(), newFakeAnswerer("q1")
	out := triage.Desk(desk, ans.decide, time.Millisecond).Watch(t.Context())
	desk.in <- question("q1")
	if u := next(t, out); describe(u) != `question q1 ""` {
		t.Fatalf("handed over %s, want q1", describe(u))
	}
}

// WatchKinds asks the desk for the closings too, to know of a question
// that closed before it was decided, but hands over only the kinds asked
// for, and the end.
func TestWatchKindsHandsOverTheKindsAskedFor(t *testing.T) {
	t.Parallel()
	desk, ans := newFakeDesk(), newFakeAnswerer("q1")
	d := triage.Desk(desk, ans.decide, time.Hour)
	kw, ok := d.(ask.KindWatcher)
	if !ok {
		t.Fatal("the triaged desk takes no kinds")
	}
	out := kw.WatchKinds(t.Context(), ask.UpdateQuestion)
	if !slices.Contains(desk.kinds, ask.UpdateClosed) || !slices.Contains(desk.kinds, ask.UpdateQuestion) {
		t.Errorf("the desk was asked for %q", desk.kinds)
	}
	desk.in <- question("q1")
	<-ans.asked
	ans.verdicts["q1"] <- verdict{}
	if u := next(t, out); describe(u) != `question q1 ""` {
		t.Fatalf("handed over %s, want q1", describe(u))
	}
	desk.in <- closed("q1")
	desk.in <- ask.Update{Kind: ask.UpdateScreen}
	desk.in <- end
	close(desk.in)
	if got, want := rest(t, out), []string{"end"}; !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}
}

// The watch ends with its context, a decision under way too.
func TestWatchEndsWithItsContext(t *testing.T) {
	t.Parallel()
	desk, ans := newFakeDesk(), newFakeAnswerer("q1")
	ctx, cancel := context.WithCancel(t.Context())
	out := triage.Desk(desk, ans.decide, time.Hour).Watch(ctx)
	desk.in <- question("q1")
	<-ans.asked
	cancel()
	if got := rest(t, out); len(got) != 0 {
		t.Errorf("handed over %q after the end", got)
	}
}

// A watcher of ask.UpdateDecisionAfterDanger gets the decisions the desk
// hands for it (the first after each danger hit), and no other kind it did
// not ask for.
func TestWatchKindsDecisionsAfterDanger(t *testing.T) {
	t.Parallel()
	desk, ans := newFakeDesk(), newFakeAnswerer()
	kw := triage.Desk(desk, ans.decide, time.Hour).(ask.KindWatcher)
	out := kw.WatchKinds(t.Context(), ask.UpdateDanger, ask.UpdateDecisionAfterDanger)
	if !slices.Contains(desk.kinds, ask.UpdateDecisionAfterDanger) || slices.Contains(desk.kinds, ask.UpdateDecision) {
		t.Errorf("the desk was asked for %q", desk.kinds)
	}
	desk.in <- ask.Update{Kind: ask.UpdateDanger}
	desk.in <- ask.Update{Kind: ask.UpdateDecision}
	desk.in <- ask.Update{Kind: ask.UpdateScreen}
	desk.in <- end
	close(desk.in)
	if got, want := rest(t, out), []string{"danger", "decision", "end"}; !slices.Equal(got, want) {
		t.Errorf("handed over %q, want %q", got, want)
	}
}
