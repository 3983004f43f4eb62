package hublink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/runner/ask"
)

// The event log's lines of the link.
const (
	LogLinked = "hub-linked" // the run linked to the hub, or linked again
	LogAway   = "hub-away"   // the hub cannot be reached: the run is answered here only
)

// Bounds of the link.
const (
	// Grace is how long the end of a run waits for the hub to hear of it.
	Grace = 3 * time.Second
	// CallTimeout bounds what the run does for one call of the hub.
	CallTimeout = 30 * time.Second
	// StartEvery is how often at most a run starts a hub that is not
	// there.
	StartEvery = time.Minute
	// stableLink is how long a link must hold for the waits before
	// linking again to start from the shortest.
	stableLink = 30 * time.Second
	// helloTimeout bounds the dial and the hello.
	helloTimeout = 5 * time.Second
)

// linkKinds are the updates the hub hears of: what it tells people of, and
// what keeps the sessions it lists alive.
var linkKinds = []string{ask.UpdateState, ask.UpdateQuestion, ask.UpdateClosed, ask.UpdateDanger, ask.UpdateScreen}

// Options are a link's settings.
type Options struct {
	// Socket is the hub's socket (Socket of the runtime folder).
	Socket string
	// Channels are the names of the hub's channels the playbook uses; nil
	// is every one.
	Channels []string
	// Start starts the hub when none answers (nil: the run waits for one);
	// it returns once the hub answers, or fails.
	Start func(ctx context.Context) error
	// Log gets a line when the run links and when the hub is away.
	Log *zap.Logger
	// Notices is told once when the hub cannot be reached (nil: nobody).
	Notices io.Writer
	// Wait is the wait before linking again after the n-th failure in a
	// row (nil: backoff.Step with jitter).
	Wait func(n int) time.Duration
}

// Link links one run to the hub, for as long as the run lives.
type Link struct {
	opts   Options
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// New returns a link; it dials nothing before Watch.
func New(opts Options) *Link {
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	if opts.Notices == nil {
		opts.Notices = io.Discard
	}
	if opts.Wait == nil {
		opts.Wait = func(n int) time.Duration { return backoff.Jitter(backoff.Step(n)) }
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Link{opts: opts, ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// Watch links desk's run to the hub until it ends (runner.WithDesk); it
// returns at once. Only the first call does anything.
func (l *Link) Watch(desk ask.Desk) {
	l.once.Do(func() {
		go func() {
			defer close(l.done)
			newRunLink(l, desk).run()
		}()
	})
}

// Close waits Grace at most for the hub to hear that the run ended, then
// stops linking.
func (l *Link) Close() {
	l.once.Do(func() { close(l.done) }) // never watched
	t := time.NewTimer(Grace)
	defer t.Stop()
	select {
	case <-l.done:
	case <-t.C:
	}
	l.cancel()
	<-l.done
}

// runLink is one run's link as it goes: linked or away.
type runLink struct {
	*Link
	desk ask.Desk
	// conn is the hub's connection while linked; frames its frames.
	conn     *Conn
	frames   chan Frame
	stopRead chan struct{}
	// away are the questions that closed while no hub heard of it.
	away     []*ask.Question
	failures int
	linkedAt time.Time
	told     bool
	started  time.Time
	retry    <-chan time.Time
	start    chan error
	// calls are the hub's calls under way, whose replies go before the
	// run's end: the hub reads nothing after it.
	calls sync.WaitGroup
}

func newRunLink(l *Link, desk ask.Desk) *runLink {
	return &runLink{Link: l, desk: desk}
}

func (r *runLink) run() {
	var updates <-chan ask.Update
	if kw, ok := r.desk.(ask.KindWatcher); ok {
		updates = kw.WatchKinds(r.ctx, linkKinds...)
	} else {
		updates = r.desk.Watch(r.ctx)
	}
	r.connect()
	defer r.drop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case u, ok := <-updates:
			if !ok {
				return
			}
			if r.update(u) {
				return
			}
		case f, ok := <-r.frames:
			if !ok {
				r.lost(errors.New("the hub closed the connection"))
				continue
			}
			r.frame(f)
		case <-r.retry:
			r.retry = nil
			r.connect()
		case err := <-r.start:
			r.start = nil
			if err != nil {
				r.lost(fmt.Errorf("starting the hub: %w", err))
				continue
			}
			r.connect()
		}
	}
}

// update hands u to the hub, or keeps what the hub must hear of once it is
// back; true once the run ended and the hub heard of it, or cannot.
func (r *runLink) update(u ask.Update) bool {
	if u.Kind == ask.UpdateClosed && u.Question != nil && r.conn == nil {
		r.away = append(r.away, u.Question)
		if len(r.away) > MaxClosed {
			r.away = slices.Delete(r.away, 0, len(r.away)-MaxClosed)
		}
	}
	if u.Kind == ask.UpdateEnd {
		r.calls.Wait() // each bounded by CallTimeout
	}
	if u.Kind == ask.UpdateEnd && r.conn == nil {
		// One last try, so that the hub closes its questions at once.
		r.retry, r.start = nil, nil
		r.dial()
	}
	if r.conn != nil {
		if err := r.conn.Write(Frame{Update: &Update{Update: u, Session: r.desk.Session()}}); err != nil {
			r.lost(err)
		}
	}
	return u.Kind == ask.UpdateEnd
}

// frame obeys a frame of the hub.
func (r *runLink) frame(f Frame) {
	switch {
	case f.Refused != "":
		r.lost(fmt.Errorf("the hub refused the run: %s", f.Refused))
	case f.Call != nil:
		conn, c := r.conn, *f.Call
		r.calls.Go(func() { r.call(conn, c) })
	}
}

// call does what the hub asks and replies on conn.
func (r *runLink) call(conn *Conn, c Call) {
	ctx, cancel := context.WithTimeout(r.ctx, CallTimeout)
	defer cancel()
	reply := Reply{ID: c.ID}
	switch {
	case c.Screen:
		screen := r.desk.Screen()
		reply.Screen = &screen
	case c.Answer != nil:
		sent, err := r.desk.Answer(ctx, *c.Answer)
		var refusal *ask.Refusal
		switch {
		case errors.As(err, &refusal):
			reply.Refusal = refusal
		case err != nil:
			reply.Error = err.Error()
		default:
			reply.Sent = &sent
		}
	default:
		reply.Error = "a call of nothing"
	}
	_ = conn.Write(Frame{Reply: &reply})
}

// connect links to the hub; where none answers, it starts one (once in
// StartEvery at most) or tries again after a wait.
func (r *runLink) connect() {
	err := r.dial()
	if err == nil {
		return
	}
	if r.opts.Start != nil && missing(err) && (r.started.IsZero() || time.Since(r.started) >= StartEvery) {
		r.started = time.Now()
		r.start = make(chan error, 1)
		go func(done chan<- error) { done <- r.opts.Start(r.ctx) }(r.start)
		return
	}
	r.lost(err)
}

// dial links to the hub and says hello; nil once linked.
func (r *runLink) dial() error {
	ctx, cancel := context.WithTimeout(r.ctx, helloTimeout)
	defer cancel()
	c, err := peer.Dial(ctx, r.opts.Socket)
	if err != nil {
		return err
	}
	conn := NewConn(c)
	hello := Hello{Version: Version, Session: r.desk.Session(), Channels: r.opts.Channels, Closed: r.away}
	if err := conn.Write(Frame{Hello: &hello}); err != nil {
		_ = conn.Close()
		return err
	}
	r.conn, r.away, r.told, r.linkedAt = conn, nil, false, time.Now()
	r.started = time.Time{} // a hub that goes away again may be started again
	r.frames, r.stopRead = make(chan Frame, 16), make(chan struct{})
	go read(conn, r.frames, r.stopRead)
	r.opts.Log.Info(LogLinked, zap.String("event", LogLinked), zap.String("hub", r.opts.Socket))
	return nil
}

// read hands conn's frames to frames until it fails or stop closes, then
// closes frames.
func read(conn *Conn, frames chan<- Frame, stop <-chan struct{}) {
	defer close(frames)
	for {
		f, err := conn.Read()
		if err != nil {
			return
		}
		select {
		case frames <- f:
		case <-stop:
			return
		}
	}
}

// lost is a link that failed, or could not be made: the run goes on here,
// and links again after a wait.
func (r *runLink) lost(err error) {
	if r.conn != nil && time.Since(r.linkedAt) >= stableLink {
		r.failures = 0 // a link that held: the next try comes soon
	}
	r.drop()
	r.failures++
	r.opts.Log.Info(LogAway, zap.String("event", LogAway), zap.String("hub", r.opts.Socket),
		zap.Int("failures", r.failures), zap.String("error", err.Error()))
	if !r.told {
		r.told = true
		fmt.Fprintf(r.opts.Notices, "clai: the hub is away (%v); this run's questions are answered here and with clai answer until it is back\n", err)
	}
	if r.retry == nil && r.start == nil {
		r.retry = time.After(r.opts.Wait(r.failures))
	}
}

// drop lets the hub's connection go.
func (r *runLink) drop() {
	if r.conn == nil {
		return
	}
	_ = r.conn.Close()
	close(r.stopRead)
	// The reader ends with the connection; its frames are no longer read.
	r.conn, r.frames = nil, nil
}

// Reachable says whether a hub answers at socket now.
func Reachable(socket string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := peer.Dial(ctx, socket)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// missing says whether err is a dial's of a socket nobody serves: no hub
// runs.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}
