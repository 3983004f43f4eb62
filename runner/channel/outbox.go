package channel

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/runner/ask"
)

// Bounds of a channel's deliveries.
const (
	// FollowUpAttempts is how often a message that is not a question (how a
	// question closed, a reply to a command or a press, the run's end) is
	// tried before it is given up. A question's own message is tried for as
	// long as the question is open.
	FollowUpAttempts = 5
	// maxLane bounds the replies waiting in one chat's queue; a reply beyond
	// it is dropped and logged.
	maxLane = 32
)

// LogWithdrawn is the event log's line of a question that closed before its
// message reached the service: it is not sent afterwards.
const LogWithdrawn = "channel-withdrawn"

// outbox delivers one Serve's messages. Each question's message is tried on
// a goroutine of its own until it is delivered or the question closes, so
// that a newer question is never held behind an older one's retries; once
// the question closes, a delivered one is followed up with how it closed.
// Replies keep their order in a queue of their own per chat (a lane). Every
// failed attempt is logged, and the next one comes after a backoff with
// jitter. Its methods are called from the Serve's own goroutine.
type outbox struct {
	// ctx is the Serve's: it ends every delivery, even an attempt under way.
	ctx     context.Context
	channel string
	log     *zap.Logger
	sleep   func(ctx context.Context, d time.Duration) bool
	wg      sync.WaitGroup
	// open are the questions not yet closed, by session and id: each has
	// one delivery per destination (a chat).
	open map[questionKey][]*delivery
	mu   sync.Mutex
	// lanes are the replies waiting, by lane; mu guards them.
	lanes map[string][]*reply
	// work is what people's inputs ask of each session, waiting, by
	// session; mu guards it.
	work map[string][]func()
}

// questionKey names a question among those of every session a Serve tells
// of.
type questionKey struct{ session, id string }

func keyOf(q *ask.Question) questionKey { return questionKey{q.Session, q.ID} }

// delivery is one destination's delivery of one question.
type delivery struct {
	// stop ends the retries of the question's message: it closed.
	stop context.CancelFunc
	// closed receives the question as it closed (buffered, one).
	closed chan *ask.Question
}

// reply is a message of a lane: call is tried until it succeeds, or
// FollowUpAttempts times.
type reply struct {
	what string
	call func(ctx context.Context) error
	// ready, for a reply reserved, closes once call is set (nil: given
	// up); the replies after it wait for it.
	ready chan struct{}
}

func newOutbox(ctx context.Context, channel string, log *zap.Logger, sleep func(context.Context, time.Duration) bool) *outbox {
	return &outbox{ctx: ctx, channel: channel, log: log, sleep: sleep, open: map[questionKey][]*delivery{}, lanes: map[string][]*reply{}, work: map[string][]func(){}}
}

// ask delivers question q: send is tried (on the outbox's context, so that
// an attempt under way is finished, while its waits end with stop) until it
// succeeds or q closes; once q closes, followUp tells how, if send
// succeeded. A question closed before send succeeded is not sent: it is
// logged as withdrawn.
func (o *outbox) ask(q *ask.Question, what string, send func(stop, ctx context.Context) error, followUp func(ctx context.Context, closed *ask.Question) error) {
	stop, cancel := context.WithCancel(o.ctx)
	d := &delivery{stop: cancel, closed: make(chan *ask.Question, 1)}
	o.open[keyOf(q)] = append(o.open[keyOf(q)], d)
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer cancel()
		sent := o.retry(stop, what, 0, func(ctx context.Context) error { return send(stop, ctx) })
		if !sent && stop.Err() == nil {
			return // refused for good: logged as given up
		}
		var closed *ask.Question
		select {
		case closed = <-d.closed:
		case <-o.ctx.Done():
			return
		}
		if !sent {
			o.log.Info(LogWithdrawn, zap.String("event", LogWithdrawn), zap.String("channel", o.channel),
				zap.String("question", q.ID), zap.String("reason", "the question closed before it reached the service"))
			return
		}
		o.retry(o.ctx, what+" (closed)", FollowUpAttempts, func(ctx context.Context) error { return followUp(ctx, closed) })
	}()
}

// asked says whether question q is open and being delivered: a question
// told again is delivered once.
func (o *outbox) asked(q *ask.Question) bool { return len(o.open[keyOf(q)]) > 0 }

// close tells q's deliveries that q closed (q.Closed says how): their
// retries end, and those that were delivered follow up.
func (o *outbox) close(q *ask.Question) {
	for _, d := range o.open[keyOf(q)] {
		d.closed <- q
		d.stop()
	}
	delete(o.open, keyOf(q))
}

// closeSession closes every question of session still open as ended with
// its run.
func (o *outbox) closeSession(session string) {
	for k := range o.open {
		if k.session == session {
			o.close(&ask.Question{ID: k.id, Session: k.session, Closed: &ask.Closed{How: ask.Ended}})
		}
	}
}

// reply queues call in lane, after the replies before it; a lane holds
// maxLane replies at most, and one beyond them is dropped and logged.
func (o *outbox) reply(lane, what string, call func(ctx context.Context) error) {
	o.queue(lane, &reply{what: what, call: call})
}

// reserve keeps the next place in lane for a reply whose call comes later,
// from work done off the serve's loop: fill gives it (nil: none), and the
// replies after it wait for it, so that a chat's replies keep the order of
// what people sent.
func (o *outbox) reserve(lane, what string) (fill func(call func(ctx context.Context) error)) {
	r := &reply{what: what, ready: make(chan struct{})}
	if !o.queue(lane, r) {
		return func(func(ctx context.Context) error) {}
	}
	var once sync.Once
	return func(call func(ctx context.Context) error) {
		once.Do(func() {
			o.mu.Lock()
			r.call = call
			o.mu.Unlock()
			close(r.ready)
		})
	}
}

// queue adds r to lane, maxLane replies at most: one beyond them is
// dropped and logged (false).
func (o *outbox) queue(lane string, r *reply) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	queue, running := o.lanes[lane]
	if len(queue) >= maxLane {
		o.log.Warn(LogFailed, zap.String("event", LogFailed), zap.String("channel", o.channel), zap.String("method", r.what),
			zap.String("error", fmt.Sprintf("dropped: %d replies already wait to be sent", len(queue))))
		return false
	}
	o.lanes[lane] = append(queue, r)
	if !running {
		o.wg.Add(1)
		go o.drain(lane)
	}
	return true
}

// serial does fn off the serve's loop, after the work queued before it for
// session: what people ask of one session (its answers, its screen) is done
// in the order they asked, and a session slow to reply holds up no other.
func (o *outbox) serial(session string, fn func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	queue, running := o.work[session]
	o.work[session] = append(queue, fn)
	if !running {
		o.wg.Add(1)
		go o.doWork(session)
	}
}

// doWork does session's work in order until none waits.
func (o *outbox) doWork(session string) {
	defer o.wg.Done()
	for {
		fn, ok := next(o, o.work, session)
		if !ok {
			return
		}
		fn()
	}
}

// next takes the first of key's queue in queues, under o.mu; false, with
// key let go, once the queue is empty: its goroutine ends then.
func next[T any](o *outbox, queues map[string][]T, key string) (T, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	queue := queues[key]
	if len(queue) == 0 {
		delete(queues, key)
		var none T
		return none, false
	}
	queues[key] = queue[1:]
	return queue[0], true
}

// drain sends lane's replies in order until it is empty.
func (o *outbox) drain(lane string) {
	defer o.wg.Done()
	for {
		r, ok := next(o, o.lanes, lane)
		if !ok {
			return
		}
		if r.ready != nil {
			select {
			case <-r.ready:
			case <-o.ctx.Done():
				return
			}
		}
		o.mu.Lock()
		call := r.call
		o.mu.Unlock()
		if call != nil {
			o.retry(o.ctx, r.what, FollowUpAttempts, call)
		}
	}
}

// wait returns once every delivery has ended; they end with the outbox's
// context at the latest.
func (o *outbox) wait() { o.wg.Wait() }

// retry tries call until it succeeds, stop ends, or attempts have been made
// (0: no bound but stop); it says whether call succeeded. Each failure is
// logged; the wait after it is backoff's, with jitter.
func (o *outbox) retry(stop context.Context, what string, attempts int, call func(ctx context.Context) error) bool {
	for attempt := 1; ; attempt++ {
		if stop.Err() != nil {
			return false
		}
		err := call(o.ctx)
		if err == nil {
			return true
		}
		if o.ctx.Err() != nil {
			return false
		}
		var refused *refusedError
		last := attempts > 0 && attempt >= attempts || errors.As(err, &refused)
		o.log.Warn(LogFailed, zap.String("event", LogFailed), zap.String("channel", o.channel), zap.String("method", what),
			zap.Int("attempt", attempt), zap.Bool("given_up", last), zap.String("error", err.Error()))
		if last || !o.sleep(stop, backoff.Jitter(backoff.Step(attempt))) {
			return false
		}
	}
}

// refusedError is the service's refusal of a request that would be refused
// again as it is (a bad request, a token it does not take, a chat it does
// not know): it is not tried again.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// refusedStatus says whether an HTTP status refuses a request for good:
// a client error, but for a timeout or too many requests.
func refusedStatus(status int) bool {
	return status/100 == 4 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests
}
