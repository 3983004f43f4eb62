package runner

import "time"

// Clock is the time source of a run. Tests of the engine need none (they pass times
// in); Run takes one so that it can be driven in virtual time too.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is a resettable timer of a Clock.
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// systemClock is the wall clock.
type systemClock struct{}

// Now returns the current time.
func (systemClock) Now() time.Time { return time.Now() }

// NewTimer returns a timer that fires after d.
func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time   { return t.t.C }
func (t systemTimer) Reset(d time.Duration) { t.t.Reset(d) }
func (t systemTimer) Stop()                 { t.t.Stop() }
