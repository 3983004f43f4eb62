package runner_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner"
)

// An `expect: eof` step waits for a slow program to end: the default step time
// (30s) does not bound it, its own timeout and timeouts.total do.
func TestEOFStepWaitsForASlowProgram(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
steps:
  - expect: "Installing"
  - expect: eof
`, runner.Config{})
	s.out(time.Millisecond, "Installing ...\r\n")
	s.advance(10 * time.Minute)
	s.wantState(runner.Running)
	s.exit(time.Second, 0)
	s.wantResult(runner.Done, runner.ExitDone)
}

func TestEOFStepBoundedByItsOwnTimeout(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
steps:
  - expect: "Installing"
  - expect: eof
    timeout: 2m
`, runner.Config{})
	s.out(time.Millisecond, "Installing ...\r\n")
	s.advance(3 * time.Minute)
	s.wantResult(runner.TimedOut, runner.ExitTimeout)
}

func TestEOFStepBoundedByTotal(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
timeouts: {total: 5m}
steps:
  - expect: eof
`, runner.Config{})
	s.out(time.Millisecond, "Building ...\r\n")
	s.advance(6 * time.Minute)
	s.wantResult(runner.TimedOut, runner.ExitTimeout)
}

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
	wantOutcome(t, rep, runner.Done, runner.ExitDone)
}
