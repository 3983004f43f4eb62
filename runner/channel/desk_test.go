package channel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/clai-sh/clai/runner/ask"
)

// fakeDesk is a running session that takes answers as a run's desk does:
// one for the open question, on its screen, refused otherwise.
type fakeDesk struct {
	mu      sync.Mutex
	session ask.Session
	screen  ask.Screen
	answers []ask.Answer
	watch   chan ask.Update
	// took is told of each answer taken.
	took chan struct{}
}

func newFakeDesk() *fakeDesk {
	return &fakeDesk{session: ask.Session{ID: "7f3c2a1e", Name: "installer", Playbook: "installer", State: "prompting"},
		watch: make(chan ask.Update, 64), took: make(chan struct{}, 1)}
}

func (d *fakeDesk) Session() ask.Session {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.session
	if s.Question != nil {
		q := *s.Question
		s.Question = &q
	}
	return s
}

func (d *fakeDesk) Screen() ask.Screen {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.screen
}

func (d *fakeDesk) Answer(_ context.Context, a ask.Answer) (ask.Sent, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.session.Question
	switch {
	case q == nil || q.ID != a.Question:
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question " + a.Question + " is open"}
	case a.ScreenHash != "" && a.ScreenHash != q.ScreenHash:
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedStale, Reason: "the screen changed"}
	case a.Choose != "" && !slices.ContainsFunc(q.Options, func(o ask.Option) bool { return o.Label == a.Choose }):
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: "no such option"}
	}
	d.answers = append(d.answers, a)
	d.session.Question = nil
	select {
	case d.took <- struct{}{}:
	default:
	}
	sent := "choose " + a.Choose
	if a.Text != nil {
		sent = *a.Text + "\r" // a line is typed with Enter, as the run says
	}
	return ask.Sent{Question: q.ID, Sent: sent}, nil
}

func (d *fakeDesk) Watch(context.Context) <-chan ask.Update { return d.watch }

// ask opens q and tells the watcher.
func (d *fakeDesk) ask(q *ask.Question) {
	d.mu.Lock()
	c := *q
	d.session.Question = &c
	d.mu.Unlock()
	d.watch <- ask.Update{Kind: ask.UpdateQuestion, State: "prompting", Question: q}
}

// moveScreen changes the screen the open question is on.
func (d *fakeDesk) moveScreen(hash string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.session.Question.ScreenHash = hash
}

// end publishes the run's end and closes the stream, as a run does.
func (d *fakeDesk) end() {
	code := 0
	d.watch <- ask.Update{Kind: ask.UpdateEnd, State: "done", Outcome: "done", ExitCode: &code}
	close(d.watch)
}

// waitTaken waits until the desk took n answers, and returns them.
func (d *fakeDesk) waitTaken(t *testing.T, n int) []ask.Answer {
	t.Helper()
	for {
		if taken := d.taken(); len(taken) >= n {
			return taken
		}
		select {
		case <-d.took:
		case <-t.Context().Done():
			t.Fatalf("the desk never took %d answers", n)
		}
	}
}

func (d *fakeDesk) taken() []ask.Answer {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.answers)
}

func question(id, hash, text string, labels ...string) *ask.Question {
	q := &ask.Question{ID: id, Session: "7f3c2a1e", Playbook: "installer", Reason: ask.Prompt, Text: text,
		Screen: "Writing config...\n" + text, ScreenHash: hash, AskedAt: time.Unix(0, 0)}
	for _, l := range labels {
		q.Options = append(q.Options, ask.Option{Label: l})
	}
	return q
}

// logs is an observed logger.
func logs() (*zap.Logger, *observer.ObservedLogs) {
	core, obs := observer.New(zap.DebugLevel)
	return zap.New(core), obs
}

// allLogs is every line with its fields.
func allLogs(obs *observer.ObservedLogs) string {
	var b strings.Builder
	for _, e := range obs.All() {
		fmt.Fprintf(&b, "%s %v\n", e.Message, e.ContextMap())
	}
	return b.String()
}

// waitLogs waits until n lines of event are logged; a generous deadline only
// catches a hang.
func waitLogs(t *testing.T, obs *observer.ObservedLogs, event string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for obs.FilterMessage(event).Len() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d %s lines, want %d:\n%s", obs.FilterMessage(event).Len(), event, n, allLogs(obs))
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// closeQuestion closes the open question q as answered by who through
// channel with sent typed, and tells the watcher, as a run does.
func (d *fakeDesk) closeQuestion(q *ask.Question, how, by, channel, sent string) {
	d.mu.Lock()
	if d.session.Question != nil && d.session.Question.ID == q.ID {
		d.session.Question = nil
	}
	d.mu.Unlock()
	c := *q
	c.Closed = &ask.Closed{How: how, By: by, Channel: channel, Sent: sent}
	d.watch <- ask.Update{Kind: ask.UpdateClosed, Question: &c}
}

// gate is a wait between attempts that ends only once the test opens it
// (then every wait passes at once), or with its context.
type gate struct {
	open  chan struct{}
	waits chan struct{}
}

func newGate() *gate { return &gate{open: make(chan struct{}), waits: make(chan struct{}, 64)} }

// Sleep waits until the gate opens or ctx ends, and says which.
func (g *gate) Sleep(ctx context.Context, _ time.Duration) bool {
	select {
	case g.waits <- struct{}{}:
	default:
	}
	select {
	case <-g.open:
		return true
	case <-ctx.Done():
		return false
	}
}

// waiting waits until a delivery waits at the gate; a generous deadline
// only catches a hang.
func (g *gate) waiting(t *testing.T) {
	t.Helper()
	select {
	case <-g.waits:
	case <-time.After(60 * time.Second):
		t.Fatal("nothing ever waited at the gate")
	}
}

// server is a fake service's state a test switches: down refuses what it
// is asked to refuse, and refused counts the refusals.
type server struct {
	mu      sync.Mutex
	down    func(body string) bool
	refused int
}

// refuse says whether a request with body is refused now, and counts it.
func (s *server) refuse(body string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down != nil && s.down(body) {
		s.refused++
		return true
	}
	return false
}

func (s *server) set(down func(body string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

func (s *server) refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}
