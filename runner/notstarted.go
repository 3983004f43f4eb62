package runner

import (
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// notStarted ends a run whose program could not be started: the log and the
// report say why (the start error, secrets masked), as they would for a run that
// failed, so the result of the run is never only an error on stderr.
func (s *session) notStarted(err error) *report.Report {
	now := s.o.clock.Now()
	s.rec.SetStart(now)
	reason := "could not start: " + err.Error()
	s.pending = append(s.pending,
		engine.Event{Name: engine.EventStart, State: engine.Starting, Reason: s.pb.Name},
		engine.Event{Name: engine.EventError, State: engine.Starting, Reason: reason},
		engine.Event{Name: engine.EventState, From: engine.Starting, State: engine.Failed, Reason: reason},
		engine.Event{Name: engine.EventFinish, State: engine.Failed, Reason: reason},
	)
	s.flush()
	return s.rec.Finish(engine.Result{State: engine.Failed, ExitCode: exitcode.Failed, Reason: reason}, nil, nil, now)
}

// maskedError is an error whose message has the run's secrets masked; it still
// wraps the original, so errors.Is and errors.As see through it.
type maskedError struct {
	err error
	msg string
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }
