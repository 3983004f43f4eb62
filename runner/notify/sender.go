package notify

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/triage"
)

// Bounds of delivery (docs/notifications.md).
const (
	// QueueSize is how many notifications wait for one target, beside the
	// one being tried; a new one then drops the oldest that waits.
	QueueSize = 16
	// MaxInFlight is how many attempts to one target run at once: one, so
	// that a target that works hears of everything in order.
	MaxInFlight = 1
	// Attempts is how often a notification is tried at most.
	Attempts = 120
	// RetryWindow is how long after it was queued a notification may still
	// be tried: no attempt starts later.
	RetryWindow = 30 * time.Minute
	// FirstBackoff is the step after the first failed attempt; it doubles,
	// up to MaxBackoff. The wait is the step less a random jitter of up to
	// half of it.
	FirstBackoff = backoff.First
	MaxBackoff   = backoff.Max
	// Grace is how long the end of a run waits for what is not delivered.
	Grace = 5 * time.Second
	// maxDedupKeys bounds the notifications a target remembers.
	maxDedupKeys = 1024
	// maxTold bounds the open questions a target remembers it was told of,
	// to tell it of their close.
	maxTold = 256
)

// The event log's lines of the sender. Each names the target, the
// notification, its event (on), its kind and, for a question and its close,
// the question's id.
const (
	LogSent      = "notify-sent"
	LogFailed    = "notify-failed"
	LogDropped   = "notify-dropped"
	LogGaveUp    = "notify-gave-up"
	LogCancelled = "notify-cancelled"
)

// The kinds of notification, as the log names them.
const (
	KindQuestion = "question" // a question opened (on: question, danger, manual)
	KindClosed   = "closed"   // a question the target was told of closed
	KindDanger   = "danger"   // a danger hit that opened no question
	KindEnd      = "end"      // the run ended
)

// Route is a target with what its spec says of when it is told.
type Route struct {
	Target Target
	Spec   *playbooks.Notify
}

// Sender delivers a run's notifications to its routes, each from an outbox
// of its own (see outbox.go).
type Sender struct {
	log      *zap.Logger
	grace    time.Duration
	backoff  func(attempt int) time.Duration
	jitter   func(step time.Duration) time.Duration
	attempts int
	window   time.Duration
	routes   []*route
	// giveUp ends every attempt and wait when the grace after the run is
	// over.
	giveUp context.Context
	stop   context.CancelCauseFunc
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

// WithBackoff sets the step after the attempt-th failed attempt (default:
// FirstBackoff doubling up to MaxBackoff); the jitter is taken off it.
func WithBackoff(f func(attempt int) time.Duration) Option {
	return func(s *Sender) { s.backoff = f }
}

// WithJitter sets the wait after a failed attempt from its step: f returns
// a duration between step/2 and step (one outside is brought to the nearer
// end). The default draws it at random. f is called from several
// goroutines at once.
func WithJitter(f func(step time.Duration) time.Duration) Option {
	return func(s *Sender) { s.jitter = f }
}

// WithRetryBounds sets how often a notification is tried at most and how
// long after it was queued it may still be tried (defaults Attempts and
// RetryWindow); a value <= 0 keeps the default.
func WithRetryBounds(attempts int, window time.Duration) Option {
	return func(s *Sender) {
		if attempts > 0 {
			s.attempts = attempts
		}
		if window > 0 {
			s.window = window
		}
	}
}

// WithDashboard has a question's notification carry the URL, with its
// token, of the dashboard find returns when the notification is made (""
// when none runs), unless its target says dashboard_link: false. The token
// never reaches a log line: an error that quotes it is masked.
func WithDashboard(find func() string) Option { return func(s *Sender) { s.dashboard = find } }

// NewSender starts a worker for each route. Close ends them.
func NewSender(routes []Route, opts ...Option) *Sender {
	s := &Sender{log: zap.NewNop(), grace: Grace, backoff: backoff.Step, jitter: backoff.Jitter,
		attempts: Attempts, window: RetryWindow, ended: make(chan struct{})}
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

// retryWait is the wait after the attempt-th failed attempt: its step less
// the jitter, between half the step and the step.
func (s *Sender) retryWait(attempt int) time.Duration {
	step := s.backoff(attempt)
	if step <= 0 {
		return 0
	}
	return min(max(s.jitter(step), step/2), step)
}

// Watch tells the routes of the updates of desk until the run ends (or
// Close). It returns at once.
func (s *Sender) Watch(desk ask.Desk) { s.WatchNamed(desk, nil) }

// WatchNamed is Watch of desk for the routes whose spec's name is among
// names only (nil: every route): the hub tells each run's updates to the
// targets its playbook uses. A sender may watch many desks at once, each
// route one outbox for them all.
func (s *Sender) WatchNamed(desk ask.Desk, names []string) {
	if s.triage != nil {
		desk = triage.Desk(desk, s.triage, s.triageWait)
	}
	ctx, cancel := context.WithCancel(s.giveUp)
	var updates <-chan ask.Update
	if kw, ok := desk.(ask.KindWatcher); ok {
		// Only these can tell anyone (see candidates): the run's answers
		// and screens are never handed over.
		updates = kw.WatchKinds(ctx, ask.UpdateQuestion, ask.UpdateClosed, ask.UpdateDanger, ask.UpdateEnd)
	} else {
		updates = desk.Watch(ctx)
	}
	s.watched.Add(1)
	go func() {
		defer s.watched.Done()
		defer cancel()
		for {
			// The desk closes updates after the run's end; what is still on
			// its way then (the closes of the last questions, the end, which
			// a triage relays) counts, within the grace of Close.
			var u ask.Update
			var ok bool
			select {
			case u, ok = <-updates:
			case <-ctx.Done():
				return
			}
			if !ok {
				return
			}
			// Most updates (the screen, clai's answers) tell nobody: the
			// session is not asked for those.
			if candidates(u) != nil || u.Kind == ask.UpdateClosed && u.Question != nil {
				s.notify(u, desk.Session(), names)
			}
		}
	}()
}

// Notify queues update u of session for each route that is told of it. A
// question that closed is taken from every queue it waits in, and each
// route that was told of it is told it closed.
func (s *Sender) Notify(u ask.Update, session ask.Session) { s.notify(u, session, nil) }

// notify is Notify for the routes named in names (nil: every one).
func (s *Sender) notify(u ask.Update, session ask.Session, names []string) {
	if u.Kind == ask.UpdateClosed {
		s.closeQuestion(u, session)
		return
	}
	evs := candidates(u)
	if len(evs) == 0 {
		return
	}
	dashboard := sync.OnceValue(s.dashboardURL)
	for _, r := range s.routes {
		if names != nil && !slices.Contains(names, r.Spec.Name) {
			continue
		}
		for _, ev := range evs {
			if r.Spec.Wants(ev) {
				n := build(s.nextID(session.ID), ev, u, session)
				if n.Answer != nil && !r.Spec.NoDashboardLink {
					n.Answer.Dashboard = dashboard()
				}
				r.offer(n, kindOf(u))
				break
			}
		}
	}
}

// closeQuestion cancels the question u closed where it waits, and tells
// each route that has it that it closed.
func (s *Sender) closeQuestion(u ask.Update, session ask.Session) {
	if u.Question == nil {
		return
	}
	for _, r := range s.routes {
		r.closeQuestion(session.ID, u.Question, func() *Notification { return buildClosed(s.nextID(session.ID), u, session) })
	}
}

// kindOf is the kind of the notification of update u.
func kindOf(u ask.Update) string {
	switch {
	case u.Question != nil:
		return KindQuestion
	case u.Kind == ask.UpdateDanger:
		return KindDanger
	}
	return KindEnd
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

// Close is called once the run ended: the watched desk's last updates are
// taken in and what is waiting is delivered, for the grace at most; then
// what is left is given up, with a log line each.
// It returns when every worker has ended.
func (s *Sender) Close() {
	s.closed.Do(func() {
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
