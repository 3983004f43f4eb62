package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// wantAwaits fails unless each send so far says, in order, whether it was
// typed awaiting a reaction.
func (s *sim) wantAwaits(want ...bool) {
	s.t.Helper()
	if !slices.Equal(s.awaits, want) {
		s.t.Fatalf("sends %q await a reaction %v, want %v\nevents:\n%s", s.sent, s.awaits, want, s.timeline())
	}
}

// TestAnAnswerSaysItAwaitsAReaction: the engine says on the keystrokes
// themselves that it awaits the program's reaction to them, the answer and
// the one copy sent again without one; the session needs to ask it nothing.
// What the session then finds of the echo reaches the engine as an
// observation of its own, before the engine's next call: echo off there, and
// the answer is not sent again.
func TestAnAnswerSaysItAwaitsAReaction(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {settle: 300ms, min_send_interval: 0s}
steps:
  - expect: "Name: "
    line: "x"
  - expect: eof
`
	t.Run("silence", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, pb, engine.Config{})
		s.out(time.Millisecond, "Name: ")
		s.wantSent("x\r")
		s.wantAwaits(true)
		s.e.Echo(true) // echo on: silence is no reaction
		s.advance(1500 * time.Millisecond)
		s.wantSent("x\r", "x\r")
		s.wantAwaits(true, true)
		s.advance(2 * time.Second)
		s.wantSent("x\r", "x\r")
		s.wantState(engine.Prompting)
	})
	t.Run("echo off before the next call", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, pb, engine.Config{})
		s.out(time.Millisecond, "Name: ")
		s.wantAwaits(true)
		s.e.Echo(false)
		if at, ok := s.e.Deadline(); ok && at.Sub(s.now) < 300*time.Millisecond {
			t.Fatalf("a deadline %s after the answer: echo off leaves no reaction to wait for", at.Sub(s.now))
		}
		s.advance(3 * time.Second)
		s.wantSent("x\r")
		s.wantState(engine.Running)
	})
	t.Run("a reaction ends the wait", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s}
steps:
  - expect: "Name: "
    line: "x"
  - expect: "Again: "
    keys: [enter]
  - expect: "Last: "
    line: "z"
`, engine.Config{})
		s.out(time.Millisecond, "Name: ")
		// A key may do its work without a sign: nothing awaits it.
		s.out(time.Millisecond, "x\r\nAgain: ")
		s.out(time.Millisecond, "y\r\nLast: ")
		s.wantSent("x\r", "\r", "z\r")
		s.wantAwaits(true, false, true)
	})
	t.Run("no wait without retry or in a dry run", func(t *testing.T) {
		t.Parallel()
		off := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s, retry: false}
steps:
  - expect: "Name: "
    line: "x"
`, engine.Config{})
		off.out(time.Millisecond, "Name: ")
		off.wantAwaits(false)
		dry := newSim(t, pb, engine.Config{DryRun: true, Interactive: true})
		dry.out(time.Millisecond, "Name: ")
		dry.wantSent("dry:x\r")
		dry.wantAwaits(false)
	})
}
