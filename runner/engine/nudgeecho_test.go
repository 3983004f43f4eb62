package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// The echo of a nudge is no sign of life, but it is drawn on the screen as on
// the person's terminal: what the program writes next lands below it.
func TestNudgeEchoIsDrawnOnTheScreen(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 300ms}
timeouts: {idle: 10s, prompt: 1m}
nudge: {sequence: ["\r"], gap: 2s, max: 3}
rules:
  - name: below
    match: {regex: 'Working\.\.\.\n\nNext:'}
    line: "ok"
`, engine.Config{})
	s.out(time.Millisecond, "Working...\r\n")
	s.advance(10 * time.Second)
	s.wantState(engine.Nudging)
	s.wantSent("\r")
	s.out(100*time.Millisecond, "\r\n")
	s.wantState(engine.Nudging)
	s.out(100*time.Millisecond, "Next: ")
	s.advance(time.Second)
	s.wantSent("\r", "ok\r")
}
