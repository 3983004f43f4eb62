package runner

import "time"

// clock is the time source of a run: the wall clock, or a test's virtual
// one (export_test.go gives tests withClock).
type clock interface {
	Now() time.Time
	NewTimer(d time.Duration) timer
}

// timer is a resettable timer of a clock.
type timer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// systemClock is the wall clock.
type systemClock struct{}

// Now returns the current time.
func (systemClock) Now() time.Time { return time.Now() }

// NewTimer returns a timer that fires after d.
func (systemClock) NewTimer(d time.Duration) timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time   { return t.t.C }
func (t systemTimer) Reset(d time.Duration) { t.t.Reset(d) }
func (t systemTimer) Stop()                 { t.t.Stop() }
