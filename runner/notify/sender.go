package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/triage"
)

// Bounds of delivery (docs/notifications.md).
const (
	// QueueSize is how many notifications wait for one target; a new one
	// then drops the oldest.
	QueueSize = 16
	// Attempts is how often a notification is tried.
	Attempts = 5
	// FirstBackoff is the wait after the first failed attempt; it doubles,
	// up to MaxBackoff.
	FirstBackoff = time.Second
	MaxBackoff   = 30 * time.Second
	// Grace is how long the end of a run waits for what is not delivered.
	Grace = 5 * time.Second
	// maxDedupKeys bounds the notifications a target remembers.
	maxDedupKeys = 1024
)

// The event log's lines of the sender.
const (
	LogSent    = "notify-sent"
	LogFailed  = "notify-failed"
	LogDropped = "notify-dropped"
	LogGaveUp  = "notify-gave-up"
)

// Route is a target with what its spec says of when it is told.
type Route struct {
	Target Target
	Spec   *playbooks.Notify
}

// Sender delivers a run's notifications to its routes, each from a queue of
// its own.
type Sender struct {
	log     *zap.Logger
	grace   time.Duration
	backoff func(attempt int) time.Duration
	routes  []*route
	// giveUp ends every attempt and wait when the grace after the run is
	// over; closing says the run ended: the queues are worked off.
	giveUp  context.Context
	stop    context.CancelCauseFunc
	closing chan struct{}
	// ended is closed once the watcher stopped: no more will come.
	ended   chan struct{}
	watched sync.WaitGroup
	workers sync.WaitGroup
	closed  sync.Once
	mu      sync.Mutex
	count   int
	// dashboard finds the running dashboard's URL ("" when none runs).
	dashboard func() string
	// triage, when set, is asked about each question first.
	triage     triage.Func
	triageWait time.Duration
}

// Option configures a Sender.
type Option func(*Sender)

// WithLogger logs each notification sent, failed, dropped or given up.
func WithLogger(l *zap.Logger) Option { return func(s *Sender) { s.log = l } }

// WithGrace sets how long Close waits for what is not delivered (default Grace).
func WithGrace(d time.Duration) Option { return func(s *Sender) { s.grace = d } }

// WithTriage makes the sender wait up to wait for decide before it tells
// of a question (see triage.Desk): a question the answerer takes is told to
// nobody, one it leaves to people is told with its model's summary.
func WithTriage(decide triage.Func, wait time.Duration) Option {
	return func(s *Sender) { s.triage, s.triageWait = decide, wait }
}

// WithBackoff sets the wait after the attempt-th failed attempt (default:
// FirstBackoff doubling up to MaxBackoff).
func WithBackoff(f func(attempt int) time.Duration) Option {
	return func(s *Sender) { s.backoff = f }
}

// WithDashboard has a question's notification carry the URL, with its
// token, of the dashboard find returns when the notification is made (""
// when none runs), unless its target says dashboard_link: false. The token
// never reaches a log line: an error that quotes it is masked.
func WithDashboard(find func() string) Option { return func(s *Sender) { s.dashboard = find } }

// NewSender starts a worker for each route. Close ends them.
func NewSender(routes []Route, opts ...Option) *Sender {
	s := &Sender{log: zap.NewNop(), grace: Grace, backoff: defaultBackoff, closing: make(chan struct{}), ended: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.giveUp, s.stop = context.WithCancelCause(context.Background())
	for _, r := range routes {
		rt := &route{Route: r, s: s, wake: make(chan struct{}, 1), seen: map[string]time.Time{}}
		s.routes = append(s.routes, rt)
		s.workers.Add(1)
		go rt.work()
	}
	return s
}

func defaultBackoff(attempt int) time.Duration {
	d := FirstBackoff << (attempt - 1)
	if d <= 0 || d > MaxBackoff {
		return MaxBackoff
	}
	return d
}

// Watch tells the routes of the updates of desk until the run ends (or
// Close). It returns at once.
func (s *Sender) Watch(desk ask.Desk) {
	if s.triage != nil {
		desk = triage.Desk(desk, s.triage, s.triageWait)
	}
	ctx, cancel := context.WithCancel(s.giveUp)
	var updates <-chan ask.Update
	if kw, ok := desk.(ask.KindWatcher); ok {
		// Only these can tell anyone (see candidates): the run's answers
		// and screens are never handed over.
		updates = kw.WatchKinds(ctx, ask.UpdateQuestion, ask.UpdateDanger, ask.UpdateEnd)
	} else {
		updates = desk.Watch(ctx)
	}
	s.watched.Add(1)
	go func() {
		defer s.watched.Done()
		defer cancel()
		for {
			var u ask.Update
			var ok bool
			select {
			case u, ok = <-updates:
			case <-s.closing:
				// The run is over: what is buffered still counts, no more.
				select {
				case u, ok = <-updates:
				default:
					return
				}
			}
			if !ok {
				return
			}
			// Most updates (the screen, clai's answers) tell nobody: the
			// session is not asked for those.
			if candidates(u) != nil {
				s.Notify(u, desk.Session())
			}
		}
	}()
}

// Notify queues update u of session for each route that is told of it.
func (s *Sender) Notify(u ask.Update, session ask.Session) {
	evs := candidates(u)
	if len(evs) == 0 {
		return
	}
	dashboard := sync.OnceValue(s.dashboardURL)
	for _, r := range s.routes {
		for _, ev := range evs {
			if r.Spec.Wants(ev) {
				n := build(s.nextID(session.ID), ev, u, session)
				if n.Answer != nil && !r.Spec.NoDashboardLink {
					n.Answer.Dashboard = dashboard()
				}
				r.offer(n)
				break
			}
		}
	}
}

// dashboardURL is the running dashboard's URL, "" when none runs or none
// is looked for.
func (s *Sender) dashboardURL() string {
	if s.dashboard == nil {
		return ""
	}
	return s.dashboard()
}

func (s *Sender) nextID(session string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	if session == "" {
		session = "clai"
	}
	return fmt.Sprintf("%s-%d", session, s.count)
}

// Close is called once the run ended: what is waiting is delivered, for the
// grace at most; then what is left is given up, with a log line each.
// It returns when every worker has ended.
func (s *Sender) Close() {
	s.closed.Do(func() {
		close(s.closing)
		done := make(chan struct{})
		go func() {
			s.watched.Wait()
			close(s.ended)
			s.workers.Wait()
			close(done)
		}()
		timer := time.NewTimer(s.grace)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			s.stop(errGaveUp)
			<-done
		}
		s.stop(errGaveUp)
	})
}

// route is a target's queue and worker.
type route struct {
	Route
	s    *Sender
	wake chan struct{}

	mu    sync.Mutex
	queue []*Notification
	sent  []time.Time
	seen  map[string]time.Time
}

// offer queues n unless the rate or the de-duplication holds it back; a
// full queue drops its oldest.
func (r *route) offer(n *Notification) {
	r.mu.Lock()
	reason := r.holdBack(n)
	var dropped *Notification
	if reason == "" {
		if len(r.queue) == QueueSize {
			dropped, r.queue = r.queue[0], r.queue[1:]
		}
		r.queue = append(r.queue, n)
	}
	r.mu.Unlock()
	if reason != "" {
		r.logLine(LogDropped, n, zap.String("reason", reason))
		return
	}
	if dropped != nil {
		r.logLine(LogDropped, dropped, zap.String("reason", "the queue is full: the oldest is dropped"))
	}
	r.poke()
}

// holdBack says why n is not sent ("" to send it), and counts it if sent.
func (r *route) holdBack(n *Notification) string {
	now, key := n.At, dedupKey(n)
	if at, ok := r.seen[key]; ok && r.Spec.Dedup > 0 && now.Sub(at) < r.Spec.Dedup {
		return "the same notification was sent less than dedup ago"
	}
	kept := r.sent[:0]
	for _, at := range r.sent {
		if now.Sub(at) < r.Spec.RatePer {
			kept = append(kept, at)
		}
	}
	r.sent = kept
	if len(r.sent) >= r.Spec.RateMax {
		return fmt.Sprintf("the rate of %d per %s is spent", r.Spec.RateMax, r.Spec.RatePer)
	}
	r.sent = append(r.sent, now)
	if r.Spec.Dedup > 0 {
		r.remember(key, now)
	}
	return ""
}

// remember records that key was sent at now, forgetting what dedup no
// longer holds back, or the oldest, to keep at most maxDedupKeys.
func (r *route) remember(key string, now time.Time) {
	for k, at := range r.seen {
		if now.Sub(at) >= r.Spec.Dedup {
			delete(r.seen, k)
		}
	}
	for len(r.seen) >= maxDedupKeys {
		oldest, first := "", time.Time{}
		for k, at := range r.seen {
			if oldest == "" || at.Before(first) {
				oldest, first = k, at
			}
		}
		delete(r.seen, oldest)
	}
	r.seen[key] = now
}

// dedupKey is what makes two notifications the same: the event and what a
// person reads.
func dedupKey(n *Notification) string {
	key := string(n.Event) + "\x00" + n.Text + "\x00" + n.Rule
	if n.Question != nil {
		for _, o := range n.Question.Options {
			key += "\x00" + o.Label
		}
	}
	return key
}

func (r *route) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// next waits for the next notification; false when the worker is done.
func (r *route) next() (*Notification, bool) {
	for {
		r.mu.Lock()
		if len(r.queue) > 0 {
			n := r.queue[0]
			r.queue = r.queue[1:]
			r.mu.Unlock()
			return n, true
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-r.s.ended:
			r.mu.Lock()
			empty := len(r.queue) == 0
			r.mu.Unlock()
			if empty {
				return nil, false
			}
		case <-r.s.giveUp.Done():
			return nil, false
		}
	}
}

func (r *route) work() {
	defer r.s.workers.Done()
	for {
		n, ok := r.next()
		if !ok {
			break
		}
		r.deliver(n)
	}
	r.mu.Lock()
	left := r.queue
	r.queue = nil
	r.mu.Unlock()
	for _, n := range left {
		r.logLine(LogGaveUp, n, zap.String("reason", "the run ended before it was sent"))
	}
}

// deliver tries n up to Attempts times, with backoff between.
func (r *route) deliver(n *Notification) {
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeoutCause(r.s.giveUp, r.Spec.Timeout, fmt.Errorf("no answer in %s", r.Spec.Timeout))
		err := r.Target.Deliver(ctx, n)
		cancel()
		if err == nil {
			r.logLine(LogSent, n, zap.Int("attempt", attempt))
			return
		}
		if r.s.giveUp.Err() != nil {
			r.logLine(LogGaveUp, n, zap.Int("attempt", attempt), zap.String("error", n.maskDashboard(err.Error())))
			return
		}
		r.logLine(LogFailed, n, zap.Int("attempt", attempt), zap.String("error", n.maskDashboard(err.Error())))
		var p *permanentError
		if attempt == Attempts || errors.As(err, &p) {
			r.logLine(LogGaveUp, n, zap.Int("attempt", attempt), zap.String("reason", "no attempt left"))
			return
		}
		wait := time.NewTimer(r.s.backoff(attempt))
		select {
		case <-wait.C:
		case <-r.s.giveUp.Done():
			wait.Stop()
			r.logLine(LogGaveUp, n, zap.Int("attempt", attempt), zap.String("reason", "the run ended before it was sent"))
			return
		}
	}
}

func (r *route) logLine(event string, n *Notification, fields ...zap.Field) {
	fields = append([]zap.Field{zap.String("event", event), zap.String("target", r.Target.Name()),
		zap.String("notification", n.ID), zap.String("on", string(n.Event))}, fields...)
	r.s.log.Info(event, fields...)
}

// permanentError is a failure another attempt cannot mend.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }
