package engine

import (
	"context"
	"time"
)

// A Stepper drives an Engine through virtual time, as a replay, a playbook's
// tests and the engine's own tests do: no clock is read, time is what the
// caller says it is. Before each observation at time t it lets every deadline
// due by t fall due at its own time, in order; then it makes the observation.
// Time never goes back: an observation stamped before the stepper's time is made
// at its time. Every action the engine returns goes to the function the Stepper
// was made with.
//
// Each method that lets time pass takes a context: once it has ended, the run
// ends as interrupted, before any further Tick.
type Stepper struct {
	m    machine
	now  time.Time
	take func([]Action)
	// stalled is the first deadline at which a Tick made no progress; zero
	// while none has.
	stalled time.Time
}

// machine is what a Stepper drives: the Engine, or a stand-in in its tests.
type machine interface {
	Start(now time.Time) []Action
	Output(now time.Time, data []byte) []Action
	Input(now time.Time, n int) []Action
	Interrupt(now time.Time) []Action
	Exit(now time.Time, status ExitStatus) []Action
	Cancel(now time.Time, reason string) []Action
	Tick(now time.Time) []Action
	Deadline() (time.Time, bool)
	Result() *Result
}

// NewStepper returns a Stepper that drives e from the time start, handing the
// actions of each of e's calls to take (valid until the next call, as e's are).
func NewStepper(e *Engine, start time.Time, take func([]Action)) *Stepper {
	return newStepper(e, start, take)
}

func newStepper(m machine, start time.Time, take func([]Action)) *Stepper {
	return &Stepper{m: m, now: start, take: take}
}

// Now returns the stepper's virtual time: the latest of the times it was given
// and of the deadlines it ticked at.
func (s *Stepper) Now() time.Time { return s.now }

// Stalled returns the first deadline at which a Tick made no progress: it did
// nothing and left the engine due again at once. The stepper does not tick
// again at such a deadline until time moves on, so a stall costs one Tick per
// step instead of a hang; the engine's tests hold it to never stalling.
func (s *Stepper) Stalled() (time.Time, bool) { return s.stalled, !s.stalled.IsZero() }

// Start begins the run at the stepper's time.
func (s *Stepper) Start() { s.take(s.m.Start(s.now)) }

// Advance lets d of virtual time pass, as AdvanceTo does.
func (s *Stepper) Advance(ctx context.Context, d time.Duration) {
	s.AdvanceTo(ctx, s.now.Add(d))
}

// AdvanceTo lets virtual time pass up to t: each deadline due by t is ticked
// at its own time, earliest first, until the run ends, and the stepper's time
// becomes t. When ctx has ended the run ends at once as interrupted, at the
// stepper's time, and time does not move.
func (s *Stepper) AdvanceTo(ctx context.Context, t time.Time) {
	for s.m.Result() == nil {
		if ctx.Err() != nil {
			s.take(s.m.Cancel(s.now, "clai was interrupted"))
			return
		}
		next, ok := s.m.Deadline()
		if !ok || next.After(t) {
			break
		}
		if next.After(s.now) {
			s.now = next
		}
		if !s.tick() {
			break
		}
	}
	if t.After(s.now) {
		s.now = t
	}
}

// tick ticks the engine at the stepper's time and reports whether that made
// progress: it acted, or it is not due again by then.
func (s *Stepper) tick() bool {
	actions := s.m.Tick(s.now)
	progress := len(actions) > 0
	s.take(actions)
	if next, ok := s.m.Deadline(); !progress && ok && !next.After(s.now) {
		if s.stalled.IsZero() {
			s.stalled = next
		}
		return false
	}
	return true
}

// Output observes, at t, bytes the program wrote.
func (s *Stepper) Output(ctx context.Context, t time.Time, data []byte) {
	s.AdvanceTo(ctx, t)
	s.take(s.m.Output(s.now, data))
}

// Input observes, at t, n bytes a person typed.
func (s *Stepper) Input(ctx context.Context, t time.Time, n int) {
	s.AdvanceTo(ctx, t)
	s.take(s.m.Input(s.now, n))
}

// Interrupt observes, at t, a Ctrl-C from the person at the terminal.
func (s *Stepper) Interrupt(ctx context.Context, t time.Time) {
	s.AdvanceTo(ctx, t)
	s.take(s.m.Interrupt(s.now))
}

// Exit observes, at t, the end of the program.
func (s *Stepper) Exit(ctx context.Context, t time.Time, status ExitStatus) {
	s.AdvanceTo(ctx, t)
	s.take(s.m.Exit(s.now, status))
}
