package notify

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/backoff"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
)

// TestRetryWaitJitteredAndBounded: the wait after a failed attempt is its
// step less a random jitter: it varies, and stays between half the step and
// the step, whatever the jitter function returns.
func TestRetryWaitJitteredAndBounded(t *testing.T) {
	t.Parallel()
	s := NewSender(nil)
	defer s.Close()
	for attempt := 1; attempt <= 8; attempt++ {
		step := backoff.Step(attempt)
		seen := map[time.Duration]bool{}
		for range 100 {
			w := s.retryWait(attempt)
			if w < step/2 || w > step {
				t.Fatalf("attempt %d: a wait of %s, out of [%s, %s]", attempt, w, step/2, step)
			}
			seen[w] = true
		}
		if len(seen) < 2 {
			t.Errorf("attempt %d: 100 waits, all %v: no jitter", attempt, seen)
		}
	}
	if got := backoff.Step(40); got != MaxBackoff {
		t.Errorf("the 40th step is %s, want MaxBackoff", got)
	}
	for _, c := range []struct {
		jitter func(time.Duration) time.Duration
		want   time.Duration
	}{
		{func(step time.Duration) time.Duration { return -step }, 4 * time.Second},
		{func(step time.Duration) time.Duration { return 10 * step }, 8 * time.Second},
		{func(step time.Duration) time.Duration { return step * 3 / 4 }, 6 * time.Second},
	} {
		s := NewSender(nil, WithBackoff(func(int) time.Duration { return 8 * time.Second }), WithJitter(c.jitter))
		if got := s.retryWait(1); got != c.want {
			t.Errorf("a step of 8s: a wait of %s, want %s", got, c.want)
		}
		s.Close()
	}
}

// failing is a target every attempt of which fails.
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Deliver(context.Context, *Notification) error {
	return errors.New("status 503")
}

// TestSettleSchedulesWithJitterWithinBounds: a failed attempt is tried
// again after its jittered wait, unless its attempts or its retry window
// are spent.
func TestSettleSchedulesWithJitterWithinBounds(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	src := rand.New(rand.NewPCG(1, 2))
	var drawn []time.Duration
	jitter := func(step time.Duration) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		w := step - time.Duration(src.Int64N(int64(step/2)+1))
		drawn = append(drawn, w)
		return w
	}
	const step = 10 * time.Second
	s := NewSender(nil, WithBackoff(func(int) time.Duration { return step }), WithJitter(jitter), WithRetryBounds(3, time.Minute))
	defer s.Close()
	spec := &playbooks.Notify{Kind: playbooks.NotifyCommand, RateMax: 10, RatePer: time.Minute, Timeout: time.Second}
	r := &route{Route: Route{Target: failing{}, Spec: spec}, s: s, wake: make(chan struct{}, 1), seen: map[string]time.Time{}}
	q := &ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Go?"}
	n := build("s-1", playbooks.NotifyQuestion, ask.Update{Kind: ask.UpdateQuestion, Question: q}, ask.Session{ID: "s"})
	now := time.Now()
	it := r.newItem(n, KindQuestion)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items = append(r.items, it)
	var waits []time.Duration
	for attempt := 1; attempt <= 2; attempt++ {
		it.flying, it.attempt = true, attempt
		r.flying++
		lines := r.settle(it, errors.New("status 503"), now)
		if len(lines) != 1 || lines[0].event != LogFailed || !it.due.After(now) {
			t.Fatalf("attempt %d: %+v, due in %s", attempt, lines, it.due.Sub(now))
		}
		waits = append(waits, it.due.Sub(now))
	}
	if len(drawn) != 2 || waits[0] != drawn[0] || waits[1] != drawn[1] || waits[0] == waits[1] {
		t.Errorf("waits %v, the jitter drew %v", waits, drawn)
	}
	for _, w := range waits {
		if w < step/2 || w > step {
			t.Errorf("a wait of %s, out of [%s, %s]", w, step/2, step)
		}
	}
	// The third attempt is the last.
	it.flying, it.attempt = true, 3
	r.flying++
	if lines := r.settle(it, errors.New("status 503"), now); len(lines) != 2 || lines[1].event != LogGaveUp || len(r.items) != 0 {
		t.Errorf("after the last attempt: %+v", lines)
	}
	// One whose next wait would end past its window is given up.
	late := r.newItem(n, KindQuestion)
	late.deadline = now.Add(step / 4)
	late.flying, late.attempt = true, 1
	r.flying++
	r.items = append(r.items, late)
	if lines := r.settle(late, errors.New("status 503"), now); len(lines) != 2 || lines[1].event != LogGaveUp || len(r.items) != 0 {
		t.Errorf("past its window: %+v", lines)
	}
}
