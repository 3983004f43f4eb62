package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// An `expect: eof` step waits for a slow program to end: the default step time
// (30s) does not bound it, its own timeout and timeouts.total do.
func TestEOFStepWaitsForASlowProgram(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
steps:
  - expect: "Installing"
  - expect: eof
`, engine.Config{})
	s.out(time.Millisecond, "Installing ...\r\n")
	s.advance(10 * time.Minute)
	s.wantState(engine.Running)
	s.exit(time.Second, 0)
	s.wantResult(engine.Done, exitcode.Done)
}

func TestEOFStepBoundedByItsOwnTimeout(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
steps:
  - expect: "Installing"
  - expect: eof
    timeout: 2m
`, engine.Config{})
	s.out(time.Millisecond, "Installing ...\r\n")
	s.advance(3 * time.Minute)
	s.wantResult(engine.TimedOut, exitcode.Timeout)
}

func TestEOFStepBoundedByTotal(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
timeouts: {total: 5m}
steps:
  - expect: eof
`, engine.Config{})
	s.out(time.Millisecond, "Building ...\r\n")
	s.advance(6 * time.Minute)
	s.wantResult(engine.TimedOut, exitcode.Timeout)
}
