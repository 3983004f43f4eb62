package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/user"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/screen"
)

// WithDesk hands ready the run's ask.Desk once the program started, before
// any of its output is read: through it others see the session, its screen
// and its updates, and answer its questions. ready is called once, on the
// run's goroutine, and must not block; the Desk stays usable from any
// goroutine, and once the run ended it says so (Answer refuses with
// ask.RefusedEnded, Watch's channels are closed). A run without it carries no
// question machinery beyond the engine's. Each WithDesk of a run is handed
// the Desk, in the order given: the session's server and the notifications
// each take theirs.
func WithDesk(ready func(ask.Desk)) Option {
	return func(o *options) {
		if before := o.desk; before != nil {
			o.desk = func(d ask.Desk) { before(d); ready(d) }
			return
		}
		o.desk = ready
	}
}

// WithSuggestions gives each question the run opens the suggestions suggest
// returns for it, before the question is published, logged or reported.
// suggest is called on the run's goroutine, as the question opens: it must
// be quick and bound its own time.
func WithSuggestions(suggest func(ask.Question) []ask.Suggestion) Option {
	return func(o *options) { o.suggest = suggest }
}

// WithRemote says that a person may answer from elsewhere (a Desk's Answer):
// a headless run handed over to a person then waits timeouts.prompt for an
// answer instead of ending at once.
func WithRemote(on bool) Option { return func(o *options) { o.remote = on } }

// watchBuffer is how many updates a watcher may lag behind before it loses
// some; screen updates only take the first half of it, so a flood of them
// leaves room for a question.
const watchBuffer = 64

// desk is the ask.Desk of a running session. What touches the engine runs in
// the session's loop (calls); what the loop learns is kept in a snapshot for
// Session, and published to the watchers without ever waiting for them.
type desk struct {
	calls chan func()
	// over is closed once the loop ended; nothing is served by it after.
	over     chan struct{}
	overOnce sync.Once

	mu       sync.Mutex
	info     ask.Session
	screen   ask.Screen // the screen at the end, once over
	end      ask.Update // the run's UpdateEnd, once over
	watchers map[chan ask.Update]kindSet
	// wanted is the kinds some watcher takes, so that an update nobody
	// takes costs no lock.
	wanted  atomic.Uint32
	closing closers // the question sources' open questions
	dir     string  // the program's working folder
	// dirGuessed is set when no folder was given and dir is clai's own.
	dirGuessed bool
	// sess is the session; only its loop touches it, through calls.
	sess *session
	// dangerSince is set when a danger rule matched since clai's last
	// decision; only observe touches it.
	dangerSince bool
}

// sessionID returns a new random session id: every live run has one, which
// its questions carry.
func sessionID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// person returns the name of the user clai runs as, for the answers typed at
// its terminal.
func person() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// newDesk returns the desk of a session as info describes it.
func newDesk(info ask.Session) *desk {
	return &desk{
		calls:    make(chan func()),
		over:     make(chan struct{}),
		info:     info,
		watchers: map[chan ask.Update]kindSet{},
		closing:  closers{},
	}
}

// do runs f in the session's loop and reports whether it ran: not once the
// run ended, or ctx did first.
func (d *desk) do(ctx context.Context, f func()) bool {
	done := make(chan struct{})
	select {
	case d.calls <- func() { f(); close(done) }:
		<-done
		return true
	case <-d.over:
		return false
	case <-ctx.Done():
		return false
	}
}

// Session returns the session as it stands.
func (d *desk) Session() ask.Session {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.info
}

// screenNow is what the session's engine shows now.
func (s *session) screenNow() ask.Screen {
	text, hash := s.engine.Shown()
	rows, cols := int(s.rows), int(s.cols)
	if rows == 0 {
		rows, cols = screen.DefaultRows, screen.DefaultCols
	}
	return ask.Screen{Rows: rows, Cols: cols, Text: text, ANSI: s.engine.ShownColoured(), Hash: hash}
}

// Screen returns what the program shows now; once the run ended, what it
// showed last.
func (d *desk) Screen() ask.Screen {
	var scr ask.Screen
	if d.do(context.Background(), func() { scr = d.sess.screenNow() }) {
		return scr
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.screen
}

// Answer types a as the answer to its question, in the session's loop, or
// refuses it with an *ask.Refusal; an answer whose ctx ends before the loop
// takes it is not typed, and the error is ctx's.
func (d *desk) Answer(ctx context.Context, a ask.Answer) (ask.Sent, error) {
	var sent ask.Sent
	var err error
	ran := d.do(ctx, func() {
		if err = ctx.Err(); err != nil {
			return // given up meanwhile: not typed
		}
		sent, err = d.sess.answer(a)
	})
	switch {
	case ran:
		return sent, err
	case ctx.Err() != nil:
		return ask.Sent{}, ctx.Err()
	}
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
}

// kindSet is a set of kinds of ask.Update, a bit each.
type kindSet uint32

// allKinds holds every kind; afterDanger is the bit of
// ask.UpdateDecisionAfterDanger.
const (
	allKinds    = ^kindSet(0)
	afterDanger = kindSet(1 << 7)
)

// kindBit is kind's bit in a kindSet; an unknown kind has none.
func kindBit(kind string) kindSet {
	switch kind {
	case ask.UpdateState:
		return 1 << 0
	case ask.UpdateQuestion:
		return 1 << 1
	case ask.UpdateClosed:
		return 1 << 2
	case ask.UpdateDanger:
		return 1 << 3
	case ask.UpdateDecision:
		return 1 << 4
	case ask.UpdateScreen:
		return 1 << 5
	case ask.UpdateEnd:
		return 1 << 6
	case ask.UpdateDecisionAfterDanger:
		return afterDanger
	}
	return 0
}

// takes says whether some watcher takes updates of kind.
func (d *desk) takes(kind string) bool { return kindSet(d.wanted.Load())&kindBit(kind) != 0 }

// rewant sets wanted from the watchers; d.mu is held.
func (d *desk) rewant() {
	var all kindSet
	for _, kinds := range d.watchers {
		all |= kinds
	}
	d.wanted.Store(uint32(all))
}

// Watch returns the updates from now on.
func (d *desk) Watch(ctx context.Context) <-chan ask.Update { return d.watch(ctx, allKinds) }

// WatchKinds returns the updates of the given kinds from now on, and the
// run's end.
func (d *desk) WatchKinds(ctx context.Context, kinds ...string) <-chan ask.Update {
	set := kindBit(ask.UpdateEnd)
	for _, k := range kinds {
		set |= kindBit(k)
	}
	return d.watch(ctx, set)
}

func (d *desk) watch(ctx context.Context, kinds kindSet) <-chan ask.Update {
	ch := make(chan ask.Update, watchBuffer)
	d.mu.Lock()
	select {
	case <-d.over:
		// Too late for the run: its end only.
		ch <- d.end
		d.mu.Unlock()
		close(ch)
		return ch
	default:
	}
	d.watchers[ch] = kinds
	d.rewant()
	d.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-d.over:
			return // ended: the channel was closed after UpdateEnd
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if _, ok := d.watchers[ch]; ok {
			delete(d.watchers, ch)
			d.rewant()
			close(ch)
		}
	}()
	return ch
}

// publish gives u to every watcher that takes it and has room for it; d.mu
// is held. A decision goes to the watchers of ask.UpdateDecisionAfterDanger
// too when it is the first since a danger hit (afterDanger).
func (d *desk) publish(u ask.Update, afterDanger bool) {
	bit := d.bits(u.Kind, afterDanger)
	for ch, kinds := range d.watchers {
		if kinds&bit == 0 {
			continue
		}
		if u.Kind == ask.UpdateScreen && len(ch) >= cap(ch)/2 {
			continue
		}
		select {
		case ch <- u:
		default:
		}
	}
}

// bits is the set of kinds of which a watcher must take one to be handed an
// update of kind: a decision that is the first since a danger hit
// (afterDanger) goes to the watchers of ask.UpdateDecisionAfterDanger too.
func (d *desk) bits(kind string, afterDanger bool) kindSet {
	bit := kindBit(kind)
	if afterDanger && kind == ask.UpdateDecision {
		bit |= kindBit(ask.UpdateDecisionAfterDanger)
	}
	return bit
}

// observe takes in an event of the session's engine: the snapshot follows
// the state and the open question, and the watchers hear of it. It is called
// from the session's loop only, one event at a time.
func (d *desk) observe(start time.Time, e *engine.Event) {
	u := ask.Update{At: start.Add(e.At), State: string(e.State)}
	switch e.Name {
	case engine.EventState:
		u.Kind, u.Reason = ask.UpdateState, e.Reason
	case engine.EventQuestion:
		u.Kind, u.Question = ask.UpdateQuestion, e.Question
	case engine.EventAnswer, engine.EventClosed:
		u.Kind, u.Question = ask.UpdateClosed, e.Question
	case engine.EventDanger:
		u.Kind, u.Rule, u.Matched, u.Reason = ask.UpdateDanger, e.Rule, e.Excerpt, e.Reason
	case engine.EventSend, engine.EventWouldSend:
		u.Kind, u.Rule, u.Matched, u.Sent = ask.UpdateDecision, e.Rule, e.Excerpt, e.Sent
		if u.Rule == "" {
			u.Rule = e.Step
		}
	default:
		return
	}
	// Whether this is the first decision since a danger hit.
	first := false
	switch u.Kind {
	case ask.UpdateDanger:
		d.dangerSince = true
	case ask.UpdateDecision:
		first, d.dangerSince = d.dangerSince, false
	}
	bit := d.bits(u.Kind, first)
	if (u.Kind == ask.UpdateDanger || u.Kind == ask.UpdateDecision) && kindSet(d.wanted.Load())&bit == 0 {
		// Nothing of the snapshot changes, and nobody listens.
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch u.Kind {
	case ask.UpdateState:
		d.info.State, d.info.Since = u.State, u.At
	case ask.UpdateQuestion:
		d.info.Question = e.Question
	case ask.UpdateClosed:
		d.info.Question = nil
		d.closedQuestion(e.Question)
	}
	if kindSet(d.wanted.Load())&bit != 0 {
		d.publish(u, first)
	}
}

// screenChanged tells the watchers that the program showed more.
func (d *desk) screenChanged(at time.Time, state string) {
	if !d.takes(ask.UpdateScreen) {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.publish(ask.Update{Kind: ask.UpdateScreen, At: at, State: state}, false)
}

// finish ends the desk with the run: the last screen is kept, the watchers
// get UpdateEnd and their channels are closed, and nothing is served after.
func (d *desk) finish(at time.Time, scr ask.Screen, r engine.Result) {
	d.overOnce.Do(func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		close(d.over)
		d.screen = scr
		d.info.State, d.info.Question = string(r.State), nil
		code := r.ExitCode
		d.end = ask.Update{Kind: ask.UpdateEnd, At: at, State: string(r.State), Reason: r.Reason, Outcome: string(r.State), ExitCode: &code}
		for ch := range d.watchers {
			// The end reaches a watcher that lags too: it loses an
			// older update for it.
			select {
			case ch <- d.end:
			default:
				select {
				case <-ch:
				default:
				}
				ch <- d.end
			}
		}
		for ch := range d.watchers {
			close(ch)
		}
		clear(d.watchers)
		d.wanted.Store(0)
	})
}

// answer types a person's answer through the engine, as the session's loop
// does with everything else. A text typed where the program reads a password
// becomes a secret of the run first, masked wherever it shows.
func (s *session) answer(a ask.Answer) (ask.Sent, error) {
	if a.Text != nil && *a.Text != "" && !s.echo() && s.atPassword() {
		s.redact.Add(*a.Text)
	}
	actions, sent, err := s.eng().Answer(s.o.clock.Now(), a)
	s.apply(actions)
	return sent, err
}
