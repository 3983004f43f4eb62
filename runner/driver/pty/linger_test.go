package pty

import (
	"testing"
	"time"
)

// fakeNow is a clock that moves only when told to.
type fakeNow struct{ t time.Time }

func (f *fakeNow) now() time.Time          { return f.t }
func (f *fakeNow) advance(d time.Duration) { f.t = f.t.Add(d) }

func TestLingerClock(t *testing.T) {
	t.Parallel()
	clock := &fakeNow{t: time.Unix(1000, 0)}
	c := &lingerClock{period: 250 * time.Millisecond, now: clock.now}
	left := func(wantLeft time.Duration, wantRunning bool) {
		t.Helper()
		if got, running := c.left(); got != wantLeft || running != wantRunning {
			t.Fatalf("left() = %v, %v; want %v, %v", got, running, wantLeft, wantRunning)
		}
	}

	c.output() // output while the program runs starts nothing
	clock.advance(time.Hour)
	left(0, false)

	c.exited()
	left(250*time.Millisecond, true)
	clock.advance(100 * time.Millisecond)
	left(150*time.Millisecond, true)

	c.exited() // the exit is noted once; a second note moves nothing
	left(150*time.Millisecond, true)

	c.output() // output read after the exit starts the quiet again
	left(250*time.Millisecond, true)
	clock.advance(250 * time.Millisecond)
	left(0, true)
	clock.advance(time.Second)
	left(-time.Second, true)
}

func TestLingerClockWithoutPeriod(t *testing.T) {
	t.Parallel()
	for _, period := range []time.Duration{0, -1} {
		clock := &fakeNow{t: time.Unix(1000, 0)}
		c := &lingerClock{period: period, now: clock.now}
		c.exited()
		clock.advance(time.Hour)
		if got, running := c.left(); running {
			t.Errorf("period %v: left() = %v, running; want not running", period, got)
		}
	}
}
