package sessions

import (
	"context"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// fakeDesk is a session with one open question: the first answer to it is
// taken, every later one refused as closed.
type fakeDesk struct {
	mu       sync.Mutex
	session  ask.Session
	answers  []ask.Answer
	closed   map[string]bool
	watchers []chan ask.Update
	// asked counts the calls of Session.
	asked int
}

func newFakeDesk(name string) *fakeDesk {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	return &fakeDesk{closed: map[string]bool{}, session: ask.Session{
		ID: "s-" + name, Name: name, Playbook: name + ".yaml", Program: []string{"prompter"},
		PID: 42, State: "prompting", Since: at, Started: at,
		Question: &ask.Question{ID: "q1", Session: "s-" + name, Reason: ask.Prompt, Text: "Continue? [y/n]",
			Options: []ask.Option{{Label: "y"}, {Label: "n"}}, ScreenHash: "h1", AskedAt: at},
	}}
}

func (d *fakeDesk) Session() ask.Session {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked++
	return d.session
}

func (d *fakeDesk) Screen() ask.Screen {
	return ask.Screen{Rows: 24, Cols: 80, Text: "Continue? [y/n]", Hash: "h1"}
}

func (d *fakeDesk) Answer(_ context.Context, a ask.Answer) (ask.Sent, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.session.Question
	switch {
	case d.closed[a.Question]:
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedClosed, Reason: "question " + a.Question + " was closed"}
	case q == nil:
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question is open"}
	case a.Question != q.ID:
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question " + a.Question}
	case a.Text == nil:
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: "the fake takes text only"}
	}
	d.answers = append(d.answers, a)
	closed := *q
	closed.Closed = &ask.Closed{How: ask.Answered, By: a.By, Channel: a.Channel, Sent: *a.Text + "⏎"}
	d.closed[q.ID] = true
	d.session.Question = nil
	d.session.State = "running"
	d.publish(ask.Update{Kind: ask.UpdateClosed, State: "running", Question: &closed})
	return ask.Sent{Question: q.ID, Sent: *a.Text + "⏎"}, nil
}

func (d *fakeDesk) Watch(ctx context.Context) <-chan ask.Update {
	ch := make(chan ask.Update, 16)
	d.mu.Lock()
	d.watchers = append(d.watchers, ch)
	d.mu.Unlock()
	go func() {
		<-ctx.Done()
		d.mu.Lock()
		defer d.mu.Unlock()
		for i, w := range d.watchers {
			if w == ch {
				d.watchers = append(d.watchers[:i], d.watchers[i+1:]...)
				close(ch)
				return
			}
		}
	}()
	return ch
}

// publish sends u to every watcher, dropping it for one that does not keep
// up. d.mu is held.
func (d *fakeDesk) publish(u ask.Update) {
	for _, w := range d.watchers {
		select {
		case w <- u:
		default:
		}
	}
}

// end publishes the end of the run and closes every watch.
func (d *fakeDesk) end() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.publish(ask.Update{Kind: ask.UpdateEnd, State: "done", Outcome: "done"})
	for _, w := range d.watchers {
		close(w)
	}
	d.watchers = nil
}

// watching is how many watch the desk.
func (d *fakeDesk) watching() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.watchers)
}

func (d *fakeDesk) answered() []ask.Answer {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]ask.Answer(nil), d.answers...)
}

// sessionCalls is how many times Session was called.
func (d *fakeDesk) sessionCalls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asked
}
