// Package fakeclock is a clock for tests that moves only when told: Now and
// After, as the packages that take an injected clock ask for them, and each
// After is reported, so that a test knows a timer is waiting before it moves
// the clock on.
package fakeclock

import (
	"sync"
	"testing"
	"time"
)

// Clock is a clock that moves only when told. Its zero value is not ready:
// use New.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []timer
	// Waits reports the duration of each After asked for. It holds a
	// thousand before After blocks.
	Waits chan time.Duration
}

type timer struct {
	at time.Time
	c  chan time.Time
}

// New returns a clock that reads now until it is moved.
func New(now time.Time) *Clock {
	return &Clock{now: now, Waits: make(chan time.Duration, 1000)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that gets the clock's time once it was moved on
// by d, and reports d on Waits.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	ch := make(chan time.Time, 1)
	c.timers = append(c.timers, timer{at: c.now.Add(d), c: ch})
	c.mu.Unlock()
	c.Waits <- d
	return ch
}

// Advance moves the clock on by d and fires the timers due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- c.now
	}
	c.timers = kept
}

// WaitFor waits until an After of d was asked for, failing t when its
// context ends first.
func (c *Clock) WaitFor(t testing.TB, d time.Duration) {
	t.Helper()
	for {
		select {
		case got := <-c.Waits:
			if got == d {
				return
			}
		case <-t.Context().Done():
			t.Fatalf("no timer of %v was asked for", d)
		}
	}
}
