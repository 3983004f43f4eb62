package notify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/runner/ask"
)

// A route is a target's outbox and its worker. Every notification in the
// outbox has its own next attempt time: the worker starts whichever is due,
// the earliest due first, MaxInFlight attempt at a time, on a goroutine of
// its own. So a notification that waits between attempts holds back no
// other: a newer question goes out as soon as the attempt under way ends
// (within the target's timeout), never after an older one's backoff.
//
// A question that closes is taken out of the outbox; one whose attempt is
// under way when it closes is followed by its close, queued at once, which
// is dropped if that attempt fails. The route remembers the open questions it
// delivered (told), to tell the target of their close.

// item is a notification in a route's outbox.
type item struct {
	n    *Notification
	kind string
	// question is the id of the question it tells of or closes; "" none.
	// key is its session's id and question's: a sender that tells of many
	// runs (the hub's) keeps their questions apart.
	question string
	key      string
	// attempt counts the attempts started.
	attempt int
	// due is when the next attempt may start; none starts after deadline.
	due, deadline time.Time
	flying        bool
	// closing, set when its question closed while an attempt was under
	// way, is the close, queued behind it: it is dropped if the attempt
	// fails. after is, of a close, the attempt it waits for.
	closing, after *item
	// counted says the rate and de-duplication counted it.
	counted bool
}

// line is a log line, written once the route's lock is released.
type line struct {
	event   string
	it      *item
	attempt int
	fields  []zap.Field
}

// newLine is the log line of event of it, as it stands. r.mu is held
// where it may change.
func newLine(event string, it *item, fields ...zap.Field) line {
	return line{event: event, it: it, attempt: it.attempt, fields: fields}
}

// route is a target's outbox and worker.
type route struct {
	Route
	s     *Sender
	wake  chan struct{}
	tries sync.WaitGroup

	mu sync.Mutex
	// items wait or are being tried, in the order they were queued.
	items  []*item
	flying int
	// told are the open questions delivered to the target, oldest first.
	told []*item
	// done says the worker ended: nothing more is tried.
	done bool
	sent []time.Time
	seen map[string]time.Time
}

// offer queues n unless the rate or the de-duplication holds it back.
func (r *route) offer(n *Notification, kind string) {
	it := r.newItem(n, kind)
	r.mu.Lock()
	var lines []line
	if reason := r.holdBack(n); reason != "" {
		lines = append(lines, newLine(LogDropped, it, zap.String("reason", reason)))
	} else {
		it.counted = true
		lines = r.push(it, lines)
	}
	r.mu.Unlock()
	r.write(lines)
	r.poke()
}

// newItem is n, due now.
func (r *route) newItem(n *Notification, kind string) *item {
	now := time.Now()
	it := &item{n: n, kind: kind, due: now, deadline: now.Add(r.s.window)}
	if n.Closed != nil {
		it.question = n.Closed.Question
	} else if n.Question != nil {
		it.question = n.Question.ID
	}
	if it.question != "" {
		it.key = questionKey(n.Session.ID, it.question)
	}
	return it
}

// push adds it to the outbox; a full outbox drops the oldest that waits.
// r.mu is held.
func (r *route) push(it *item, lines []line) []line {
	if r.done {
		r.forget(it)
		return append(lines, newLine(LogGaveUp, it, zap.String("reason", "the run ended before it was sent")))
	}
	if len(r.items)-r.flying >= QueueSize {
		if i := slices.IndexFunc(r.items, func(it *item) bool { return !it.flying }); i >= 0 {
			old := r.items[i]
			r.items = slices.Delete(r.items, i, i+1)
			r.forget(old)
			lines = append(lines, newLine(LogDropped, old, zap.String("reason", "the queue is full: the oldest waiting is dropped")))
		}
	}
	r.items = append(r.items, it)
	return lines
}

// remove takes it out of the outbox. r.mu is held.
func (r *route) remove(it *item) {
	if i := slices.Index(r.items, it); i >= 0 {
		r.items = slices.Delete(r.items, i, i+1)
	}
}

// questionKey names question id of session among those a sender tells of.
func questionKey(session, id string) string { return session + "/" + id }

// closeQuestion takes question q of session, which closed, out of the outbox, and
// queues its close, made by build, if the target was told of it.
func (r *route) closeQuestion(session string, q *ask.Question, build func() *Notification) {
	how := ask.Ended
	if q.Closed != nil {
		how = q.Closed.How
	}
	r.mu.Lock()
	var lines []line
	for _, it := range slices.Clone(r.items) {
		if it.kind != KindQuestion || it.key != questionKey(session, q.ID) {
			continue
		}
		if it.flying {
			if it.closing == nil {
				it.closing = r.newItem(build(), KindClosed)
				it.closing.after = it
				lines = r.push(it.closing, lines)
			}
			r.forgetKey(it)
			continue
		}
		r.remove(it)
		r.forget(it)
		lines = append(lines, newLine(LogCancelled, it, zap.String("reason", "the question closed ("+how+") before it was delivered")))
	}
	if told := r.untell(questionKey(session, q.ID)); told != nil {
		r.forgetKey(told)
		lines = r.push(r.newItem(build(), KindClosed), lines)
	}
	r.mu.Unlock()
	r.write(lines)
	r.poke()
}

// tell remembers that the target has the question of it, open; the oldest is
// forgotten beyond maxTold. r.mu is held.
func (r *route) tell(it *item, lines []line) []line {
	if len(r.told) >= maxTold {
		old := r.told[0]
		r.told = slices.Delete(r.told, 0, 1)
		lines = append(lines, newLine(LogDropped, old, zap.String("reason",
			fmt.Sprintf("more than %d open questions were told: the close of the oldest will not be", maxTold))))
	}
	r.told = append(r.told, it)
	return lines
}

// untell forgets that the target has question id, and returns the
// notification that told it; nil when it has not. r.mu is held.
func (r *route) untell(id string) *item {
	i := slices.IndexFunc(r.told, func(it *item) bool { return it.key == id })
	if i < 0 {
		return nil
	}
	it := r.told[i]
	r.told = slices.Delete(r.told, i, i+1)
	return it
}

// holdBack says why n is not sent ("" to send it), and counts it if sent.
// r.mu is held.
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

// forget uncounts it, which leaves the outbox undelivered: it takes no
// place of the rate, and the same notification is no duplicate. r.mu is
// held.
func (r *route) forget(it *item) {
	if !it.counted {
		return
	}
	it.counted = false
	if i := slices.Index(r.sent, it.n.At); i >= 0 {
		r.sent = slices.Delete(r.sent, i, i+1)
	}
	r.forgetKey(it)
}

// forgetKey forgets that the notification of it was sent, so that the same
// one is sent again: its question closed, or it was never delivered. r.mu
// is held.
func (r *route) forgetKey(it *item) {
	key := dedupKey(it.n)
	if at, ok := r.seen[key]; ok && at.Equal(it.n.At) {
		delete(r.seen, key)
	}
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

// work starts the attempts as they fall due, until the run ended and the
// outbox is empty, or the grace is over; what is left is given up.
func (r *route) work() {
	defer r.s.workers.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	ended := false
loop:
	for {
		r.mu.Lock()
		lines, wait, finished := r.launch(time.Now(), ended)
		r.mu.Unlock()
		r.write(lines)
		if finished {
			break
		}
		var due <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			due = timer.C
		}
		endedCh := r.s.ended
		if ended {
			endedCh = nil
		}
		select {
		case <-r.wake:
		case <-due:
		case <-endedCh:
			ended = true
		case <-r.s.giveUp.Done():
			break loop
		}
	}
	r.tries.Wait()
	r.mu.Lock()
	left := r.items
	r.items, r.done = nil, true
	var lines []line
	for _, it := range left {
		r.forget(it)
		lines = append(lines, newLine(LogGaveUp, it, zap.String("reason", "the run ended before it was sent")))
	}
	r.mu.Unlock()
	r.write(lines)
}

// launch starts the attempts that are due, while fewer than MaxInFlight
// run; it returns how long until the next falls due (-1: none waits for a
// time), and whether the worker is finished: the run ended and the outbox
// is empty. r.mu is held.
func (r *route) launch(now time.Time, ended bool) (lines []line, wait time.Duration, finished bool) {
	for r.flying < MaxInFlight {
		it := r.nextDue(now)
		if it == nil {
			break
		}
		if now.After(it.deadline) {
			r.remove(it)
			r.forget(it)
			lines = append(lines, newLine(LogGaveUp, it, zap.String("reason", "its retry window is spent")))
			continue
		}
		it.flying, it.attempt = true, it.attempt+1
		r.flying++
		r.tries.Add(1)
		go r.try(it)
	}
	wait = -1
	for _, it := range r.items {
		if d := it.due.Sub(now); !it.flying && d > 0 && (wait < 0 || d < wait) {
			wait = d
		}
	}
	return lines, wait, ended && len(r.items) == 0
}

// nextDue is the waiting item due the earliest, if it is due at now; of
// those due at once, the first queued. A close waits for the attempt of
// its question under way. r.mu is held.
func (r *route) nextDue(now time.Time) *item {
	var next *item
	for _, it := range r.items {
		if !it.flying && (it.after == nil || !it.after.flying) && !it.due.After(now) && (next == nil || it.due.Before(next.due)) {
			next = it
		}
	}
	return next
}

// try makes one attempt to deliver it.
func (r *route) try(it *item) {
	defer r.tries.Done()
	ctx, cancel := context.WithTimeoutCause(r.s.giveUp, r.Spec.Timeout, fmt.Errorf("no answer in %s", r.Spec.Timeout))
	err := r.Target.Deliver(ctx, it.n)
	cancel()
	r.mu.Lock()
	lines := r.settle(it, err, time.Now())
	r.mu.Unlock()
	r.write(lines)
	r.poke()
}

// settle takes in the attempt's result: delivered, to be tried again after
// its wait, or given up. r.mu is held.
func (r *route) settle(it *item, err error, now time.Time) []line {
	it.flying = false
	r.flying--
	if err == nil {
		r.remove(it)
		lines := []line{newLine(LogSent, it, zap.Int64("delay_ms", now.Sub(it.n.At).Milliseconds()))}
		if it.kind != KindQuestion {
			return lines
		}
		if it.closing != nil {
			// Its close waits in the queue.
			it.closing.after = nil
			return lines
		}
		return r.tell(it, lines)
	}
	msg := zap.String("error", it.n.maskDashboard(err.Error()))
	if r.s.giveUp.Err() != nil {
		r.remove(it)
		r.forget(it)
		return []line{newLine(LogGaveUp, it, msg, zap.String("reason", "the run ended before it was sent"))}
	}
	wait := r.s.retryWait(it.attempt)
	var p *permanentError
	var reason string
	switch {
	case it.closing != nil:
		r.remove(it)
		r.forget(it)
		// Its close goes with it: the target never had the question.
		r.remove(it.closing)
		return []line{newLine(LogFailed, it, msg), newLine(LogCancelled, it, zap.String("reason", "the question closed before it was delivered"))}
	case errors.As(err, &p) || it.attempt >= r.s.attempts:
		reason = "no attempt left"
	case now.Add(wait).After(it.deadline):
		reason = "its retry window is spent"
	default:
		it.due = now.Add(wait)
		return []line{newLine(LogFailed, it, msg, zap.Int64("retry_in_ms", wait.Milliseconds()))}
	}
	r.remove(it)
	r.forget(it)
	return []line{newLine(LogFailed, it, msg), newLine(LogGaveUp, it, zap.String("reason", reason))}
}

// write logs lines, in order.
func (r *route) write(lines []line) {
	for _, l := range lines {
		r.logLine(l, l.fields...)
	}
}

// logLine logs l: the target, the notification, its event (on)
// and kind, its question, the attempts started, and fields.
func (r *route) logLine(l line, fields ...zap.Field) {
	it, event := l.it, l.event
	base := []zap.Field{zap.String("event", event), zap.String("target", r.Target.Name()),
		zap.String("notification", it.n.ID), zap.String("on", string(it.n.Event)), zap.String("kind", it.kind),
		zap.String("session", it.n.Session.ID), zap.Int("attempt", l.attempt)}
	if it.question != "" {
		base = append(base, zap.String("question", it.question))
	}
	r.s.log.Info(event, append(base, fields...)...)
}

// permanentError is a failure another attempt cannot mend.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }
