package runner_test

import (
	"testing"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// A real program that works longer than timeouts.step before it ends: the eof
// step waits for it.
func TestRunEOFStepOutlastsTheStepTime(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: slow
spawn: {command: [/bin/sh, -c, "echo working; sleep 2; echo done"]}
timeouts: {step: 500ms}
steps:
  - expect: working
  - expect: eof
`)
	rep := run(t, pb)
	wantOutcome(t, rep, engine.Done, exitcode.Done)
}
