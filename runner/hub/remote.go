package hub

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/hublink"
)

// RefusedAway is the code of an answer refused because its run cannot be
// reached just now: nothing was typed, and it may be given again.
const RefusedAway = "away"

// watchBuffer bounds the updates waiting for one watcher of a run; a
// watcher that does not keep up loses updates, never slows the hub.
const watchBuffer = 64

// run is a registered run as the hub's channels reach it: an ask.Desk whose
// session is the run's last word, whose answers go to the run over its
// link, and which lives on while the link is away (the run links again)
// until the run ends or is given up.
type run struct {
	key      string
	channels []string

	mu       sync.Mutex
	session  ask.Session
	conn     *hublink.Conn
	pending  map[uint64]chan hublink.Reply
	watchers []*watcher
	ended    bool
	// away is when the link went away; zero while linked.
	away time.Time
	// gone ends the wait for the run to link again.
	gone chan struct{}

	calls atomic.Uint64
}

// watcher is one Watch of a run.
type watcher struct {
	ch    chan ask.Update
	kinds []string
	// stop lets go of the watch of its context's end.
	stop func() bool
}

func newRun(key string, hello *hublink.Hello) *run {
	return &run{key: key, channels: hello.Channels, session: hello.Session, pending: map[uint64]chan hublink.Reply{}}
}

// Session is the run's session as it last said.
func (r *run) Session() ask.Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.session
}

// Screen asks the run for its screen; while it is away, the screen is
// empty but for a line that says so.
func (r *run) Screen() ask.Screen {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	reply, err := r.call(ctx, hublink.Call{Screen: true})
	if err != nil || reply.Screen == nil {
		return ask.Screen{Text: "(the run cannot be reached just now)"}
	}
	return *reply.Screen
}

// awayRefusal refuses what is asked of a run whose link is away: nothing
// was typed, and it may be asked again.
func awayRefusal() *ask.Refusal {
	return &ask.Refusal{Code: RefusedAway, Reason: "the run cannot be reached just now; nothing was typed"}
}

// Answer sends a to the run, which types it or refuses it as any answer;
// a run that ended refuses it here (see call).
func (r *run) Answer(ctx context.Context, a ask.Answer) (ask.Sent, error) {
	if _, bounded := ctx.Deadline(); !bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	reply, err := r.call(ctx, hublink.Call{Answer: &a})
	switch {
	case err != nil:
		return ask.Sent{}, err
	case reply.Refusal != nil:
		return ask.Sent{}, reply.Refusal
	case reply.Error != "":
		return ask.Sent{}, errors.New(reply.Error)
	case reply.Sent == nil:
		return ask.Sent{}, errors.New("the run replied nothing")
	}
	return *reply.Sent, nil
}

// call makes c of the run and waits for its reply, ctx or the link's end.
func (r *run) call(ctx context.Context, c hublink.Call) (hublink.Reply, error) {
	c.ID = r.calls.Add(1)
	done := make(chan hublink.Reply, 1)
	r.mu.Lock()
	conn, ended := r.conn, r.ended
	if conn != nil && !ended {
		r.pending[c.ID] = done
	}
	r.mu.Unlock()
	if ended {
		return hublink.Reply{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
	}
	if conn == nil {
		return hublink.Reply{}, awayRefusal()
	}
	defer func() {
		r.mu.Lock()
		delete(r.pending, c.ID)
		r.mu.Unlock()
	}()
	if err := conn.Write(hublink.Frame{Call: &c}); err != nil {
		return hublink.Reply{}, awayRefusal()
	}
	select {
	case reply, ok := <-done:
		if !ok {
			return hublink.Reply{}, errors.New("the run ended, or its link went away, before it replied; the answer may have been typed")
		}
		return reply, nil
	case <-ctx.Done():
		return hublink.Reply{}, ctx.Err()
	}
}

// reply hands the run's reply to the call that waits for it.
func (r *run) reply(rep *hublink.Reply) {
	r.mu.Lock()
	done, ok := r.pending[rep.ID]
	delete(r.pending, rep.ID)
	r.mu.Unlock()
	if ok {
		done <- *rep
	}
}

// Watch is WatchKinds of every kind.
func (r *run) Watch(ctx context.Context) <-chan ask.Update { return r.WatchKinds(ctx) }

// WatchKinds hands the run's updates of kinds (all when none) and its end
// to the watcher, until ctx ends or the run ended. A watcher of questions
// is first told of the one open now: a channel that joins a run which
// linked with its question open asks it (one that asked it already knows).
func (r *run) WatchKinds(ctx context.Context, kinds ...string) <-chan ask.Update {
	w := &watcher{ch: make(chan ask.Update, watchBuffer), kinds: kinds}
	r.mu.Lock()
	defer r.mu.Unlock()
	if q := r.session.Question; q != nil && q.Closed == nil && !r.ended && (len(kinds) == 0 || slices.Contains(kinds, ask.UpdateQuestion)) {
		w.ch <- ask.Update{Kind: ask.UpdateQuestion, At: q.AskedAt, State: r.session.State, Question: q}
	}
	if r.ended {
		w.ch <- ask.Update{Kind: ask.UpdateEnd, At: time.Now(), State: r.session.State, Outcome: "ended"}
		close(w.ch)
		return w.ch
	}
	r.watchers = append(r.watchers, w)
	w.stop = context.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if i := slices.Index(r.watchers, w); i >= 0 {
			r.watchers = slices.Delete(r.watchers, i, i+1)
			close(w.ch)
		}
	})
	return w.ch
}

// publish hands u to each watcher that takes its kind; the run's end closes
// them all. r.mu is held.
func (r *run) publish(u ask.Update) {
	for _, w := range r.watchers {
		if u.Kind != ask.UpdateEnd && len(w.kinds) > 0 && !slices.Contains(w.kinds, u.Kind) {
			continue
		}
		select {
		case w.ch <- u:
		default: // a watcher that does not keep up loses updates
		}
	}
	if u.Kind == ask.UpdateEnd {
		r.ended = true
		r.failPending()
		for _, w := range r.watchers {
			w.stop()
			close(w.ch)
		}
		r.watchers = nil
	}
}

// update takes an update of the run and its session after it.
func (r *run) update(u *hublink.Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	r.session = u.Session
	r.publish(u.Update)
}

// attach takes the run's link, new or again after it was away, and tells
// the watchers what changed meanwhile: each question open before and no
// more closes (as the run says it did, else as moved on), and the question
// open now is asked, which a channel that asked it already knows.
func (r *run) attach(conn *hublink.Conn, hello *hublink.Hello, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.session.Question
	r.session, r.conn, r.away, r.channels = hello.Session, conn, time.Time{}, hello.Channels
	if r.gone != nil {
		close(r.gone)
		r.gone = nil
	}
	q := hello.Session.Question
	if old != nil && (q == nil || q.ID != old.ID || q.ScreenHash != old.ScreenHash) {
		closed := *old
		closed.Closed = &ask.Closed{At: now, How: ask.MovedOn}
		for _, c := range hello.Closed {
			if c != nil && c.ID == old.ID && c.Closed != nil {
				closed.Closed = c.Closed
			}
		}
		r.publish(ask.Update{Kind: ask.UpdateClosed, At: now, State: r.session.State, Question: &closed})
	}
	if q != nil && q.Closed == nil {
		r.publish(ask.Update{Kind: ask.UpdateQuestion, At: now, State: r.session.State, Question: q})
	}
}

// detach lets conn go, if it is still the run's link: the calls that wait
// on it fail, and the run is away until it links again. It returns the
// channel that closes when it does; nil when conn was not the run's link.
func (r *run) detach(conn *hublink.Conn, now time.Time) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != conn || r.ended {
		return nil
	}
	r.conn, r.away = nil, now
	r.failPending()
	r.gone = make(chan struct{})
	return r.gone
}

// failPending ends the calls that wait for a reply that will not come: the
// link went away, or the run ended. r.mu is held.
func (r *run) failPending() {
	for id, done := range r.pending {
		close(done)
		delete(r.pending, id)
	}
}

// end ends the run as the hub last knew it, with outcome: its open question
// closes as ended everywhere.
func (r *run) end(outcome string, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	if q := r.session.Question; q != nil {
		closed := *q
		closed.Closed = &ask.Closed{At: now, How: ask.Ended}
		r.publish(ask.Update{Kind: ask.UpdateClosed, At: now, State: r.session.State, Question: &closed})
		r.session.Question = nil
	}
	r.publish(ask.Update{Kind: ask.UpdateEnd, At: now, State: r.session.State, Outcome: outcome})
}

// isEnded says whether the run ended.
func (r *run) isEnded() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}
