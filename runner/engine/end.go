package engine

import (
	"fmt"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/exitcode"
)

// How a run ends: the program exits, the run is cancelled, or the engine
// decides it is over.

// Cancel ends the run from outside (a signal to clai, a cancelled context).
func (e *Engine) Cancel(now time.Time, reason string) []Action {
	e.begin(now)
	if e.result == nil {
		e.finish(Aborted, exitcode.Interrupted, reason, true)
	}
	return e.end()
}

// Exit observes the end of the program; all its output has been observed before.
func (e *Engine) Exit(now time.Time, status ExitStatus) []Action {
	e.begin(now)
	if e.result != nil {
		if e.result.Child == nil {
			e.result.Child = &status
		}
		return e.end()
	}
	e.exitCode = status.Code
	if tail := e.strip.Flush(nil); len(tail) > 0 {
		e.scanDanger(tail)
		e.view.add(tail)
		e.unmatched++
	}
	if e.unmatched > 0 || e.screen != nil && e.screen.changed() {
		// The last output is matched before the end: the view is final now.
		e.match()
	}
	e.emit(Event{Name: EventExit, Reason: status.String()})
	if e.result != nil {
		e.result.Child = &status
		return e.end()
	}
	// The end of output satisfies a step or case waiting for eof.
	for e.steps.idx < len(e.pb.Steps) {
		s := e.pb.Steps[e.steps.idx]
		if !stepAcceptsEOF(s) {
			break
		}
		e.emit(Event{Name: EventMatch, Step: stepName(s), Excerpt: "eof"})
		e.steps.idx++
	}
	ended := "the program ended (" + status.String() + ")"
	if status.PaneClosed {
		ended = "the pane closed"
	}
	if e.state == Manual && e.handOver.decidedBy == "" {
		e.finishChild(Manual, exitcode.Manual, fmt.Sprintf("%s after the hand-over to a person (%s), which nobody took", ended, e.handOver.cause), status)
		return e.end()
	}
	// A hand-over a person took ends as the program does, saying who decided.
	decided := ""
	if e.handOver.decidedBy != "" {
		decided = fmt.Sprintf(", after %s decided at the hand-over (%s)", e.handOver.decidedBy, e.handOver.cause)
	}
	switch {
	case e.steps.idx < len(e.pb.Steps):
		s := e.pb.Steps[e.steps.idx]
		e.finishChild(Failed, exitcode.Failed, fmt.Sprintf("%s%s while step %s waited for %s; last output: %q", ended, decided, stepName(s), describeWait(s), e.tail()), status)
	case status.PaneClosed && e.cfg.Attached:
		// The person's pane is gone, and with it what clai watched over.
		e.finishChild(Done, exitcode.Done, "the pane closed"+decided, status)
	case status.PaneClosed:
		// The program clai started did not end by itself: its pane was killed.
		e.finishChild(Failed, exitcode.Failed, "the pane closed before its program ended"+decided, status)
	case status.Code != 0 || status.Signaled():
		e.finishChild(Failed, exitcode.Failed, "the program failed: "+status.String()+decided, status)
	default:
		e.finishChild(Done, exitcode.Done, "the program ended: "+status.String()+decided, status)
	}
	return e.end()
}

func (e *Engine) finish(s State, code int, reason string, kill bool) {
	e.finishChild(s, code, reason, ExitStatus{})
	e.result.Child = nil
	if kill {
		e.actions.out = append(e.actions.out, Kill{Reason: reason})
	}
}

func (e *Engine) finishChild(s State, code int, reason string, status ExitStatus) {
	e.asker.pending = false
	e.closeQuestion(ask.Ended)
	if s.Final() {
		e.setState(s, reason)
	}
	e.result = &Result{State: s, ExitCode: code, Reason: reason, Child: &status, DecidedBy: e.handOver.decidedBy}
	e.emit(Event{Name: EventFinish, State: s, Reason: reason})
	e.actions.out = append(e.actions.out, Finish{Result: *e.result})
}
