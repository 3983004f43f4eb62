package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// A playbook over claude-code that sets its own timeouts runs with them, and with
// the preset's nudge and settings where it gives none: idle after its 60s (not the
// preset's 10m), the preset's "continue", and the end at its total of 3m.
func TestExtendingPlaybookRunsWithTheMergedTimeouts(t *testing.T) {
	t.Parallel()
	s := newSim(t, `version: 1
name: mine
extends: claude-code
spawn: {command: [claude]}
timeouts: {total: 3m, step: 90s, idle: 60s, prompt: 60s}
`, engine.Config{})
	s.out(time.Millisecond, "Read 3 files.\n")
	s.advance(59 * time.Second)
	s.wantSent()
	s.advance(2 * time.Second)
	s.wantState(engine.Nudging)
	s.wantSent("continue\r")
	s.advance(2 * time.Minute)
	s.wantResult(engine.TimedOut, exitcode.Timeout)
}
