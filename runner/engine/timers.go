package engine

import (
	"bytes"
	"fmt"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/exitcode"
)

// A timer is one thing that falls due with the passing of time. The engine's
// timers are listed once, by eachTimer: Deadline is the earliest that wakes the
// engine, and Tick runs those due.
type timer struct {
	// at is when the timer is due; zero when it is not set.
	at time.Time
	// wakes is whether the timer is a reason to call Tick: a timer that does
	// not is run by a Tick that something else is due at, once at has passed.
	wakes bool
	// fire does what is due.
	fire func(*Engine)
}

// due returns a timer that is due at t and wakes the engine.
func due(t time.Time, fire func(*Engine)) timer {
	return timer{at: t, wakes: true, fire: fire}
}

// eachTimer yields the engine's timers in order of precedence: Tick runs the
// ones due in this order, each seeing what the ones before it did. Whether a
// timer is set is decided when it is yielded, so a timer that changes the state
// sets or clears the ones after it.
func (e *Engine) eachTimer(yield func(timer) bool) {
	if e.unmatched > 0 && !yield(due(e.lastOutput.Add(batchQuiet), (*Engine).match)) {
		return
	}
	// Output a view that settles (a screen) holds back is taken in once it
	// settles: then it is matched if the view changed.
	if e.screen != nil {
		if waits, plain := e.screen.settling(); waits &&
			!yield(due(e.lastOutput.Add(e.settleQuiet(plain)), (*Engine).settled)) {
			return
		}
	}
	t := e.pb.Timeouts
	if t.Total > 0 && !yield(due(e.start.Add(t.Total), (*Engine).totalTimeout)) {
		return
	}
	if s := e.currentStep(); s != nil && e.state != Manual && s.Waits() && s.Timeout > 0 &&
		!yield(due(e.steps.since.Add(s.Timeout), (*Engine).stepTimeout)) {
		return
	}
	if e.dry.waiting && e.sender.wake.IsZero() && !yield(due(e.dryEnd(), (*Engine).dryRunWaits)) {
		return
	}
	if e.sender.held != nil && !yield(due(e.sender.last.Add(e.pb.Settings.MinSendInterval), (*Engine).typeHeld)) {
		return
	}
	if e.sources.typing != nil && !yield(due(e.sources.typing.strokeAt, (*Engine).typeStroke)) {
		return
	}
	if !e.sender.wake.IsZero() && !yield(due(e.sender.wake, (*Engine).wakeUp)) {
		return
	}
	settle := e.lastOutput.Add(e.pb.Settings.Settle)
	// A refusal is first tried once the output settles. After that the prompt
	// check has found no prompt, and only a Tick for something else (a cooldown
	// that held the refusal back ends) can find one.
	if e.refusal != nil && !yield(timer{at: settle, wakes: !e.prompt.checked, fire: (*Engine).refuseSettled}) {
		return
	}
	if e.verifier.pending && !yield(due(e.verifyAt(), (*Engine).unanswered)) {
		return
	}
	e.stateTimers(yield, settle)
}

// stateTimers yields the timers of the current state, after eachTimer's.
func (e *Engine) stateTimers(yield func(timer) bool, settle time.Time) {
	t := e.pb.Timeouts
	switch e.state {
	case Running:
		// A prompt has settled once the program wrote nothing but rows
		// drawn again elsewhere for settle.
		if !e.prompt.checked && !yield(due(e.changedAt.Add(e.pb.Settings.Settle), (*Engine).checkPrompt)) {
			return
		}
		if !e.prompt.again.IsZero() && !yield(due(e.prompt.again, (*Engine).recheckPrompt)) {
			return
		}
		if t.Idle > 0 && e.sources.asking == nil {
			yield(due(e.idleFrom().Add(t.Idle), (*Engine).checkIdle))
		}
	case Prompting:
		if !e.sources.heldUntil.IsZero() && !yield(due(e.sources.heldUntil, (*Engine).askHeld)) {
			return
		}
		if t.Prompt > 0 && !e.cfg.Interactive && !yield(due(e.prompt.since.Add(t.Prompt), (*Engine).promptTimeout)) {
			return
		}
		if t.Idle > 0 && e.sources.asking == nil {
			yield(due(e.idleFrom().Add(t.Idle), (*Engine).checkIdle))
		}
	case Nudging:
		yield(due(e.nudger.next, (*Engine).nudgeOrHandOver))
	case Manual:
		if e.asker.pending && e.sender.held == nil && !yield(due(e.askAt(), (*Engine).askSettled)) {
			return
		}
		if t.Prompt > 0 && !e.cfg.Interactive {
			yield(due(e.manualDeadline(), (*Engine).manualTimeout))
		}
	}
}

// settled matches a view that settles (a screen) once it has been still, if
// it changed since it was last matched.
func (e *Engine) settled() {
	if e.screen != nil && e.screen.changed() {
		e.match()
	}
}

// totalTimeout ends the run at timeouts.total.
func (e *Engine) totalTimeout() {
	total := e.pb.Timeouts.Total
	e.emit(Event{Name: EventTimeout, Reason: "timeouts.total"})
	e.finish(TimedOut, exitcode.Timeout, fmt.Sprintf("the run reached timeouts.total (%s); last output: %q", total, e.tail()), true)
}

// stepTimeout ends the run when the current step waited for its timeout.
func (e *Engine) stepTimeout() {
	s := e.currentStep()
	e.emit(Event{Name: EventTimeout, Step: stepName(s), Reason: "step timeout"})
	e.finish(TimedOut, exitcode.Timeout, fmt.Sprintf("step %s waited %s for %s; last output: %q", stepName(s), s.Timeout, describeWait(s), e.tail()), true)
}

// dryRunWaits ends a headless dry run where the program waits for the answer
// clai would have sent.
func (e *Engine) dryRunWaits() {
	e.finish(Done, exitcode.Done, fmt.Sprintf("dry run: the program waits for the answer clai would have sent (%q)", e.dry.answer), true)
}

// wakeUp evaluates again once a cooldown or min_send_interval that held an
// answer back has passed.
func (e *Engine) wakeUp() {
	e.sender.wake = time.Time{}
	e.evaluate()
}

// refuseSettled sends the pending refusal if the settled output shows a prompt.
func (e *Engine) refuseSettled() { e.refuse(true) }

// unanswered acts on an answer the program did not react to: it is sent once
// more, and after the second time the run waits at the prompt.
func (e *Engine) unanswered() {
	if e.verifier.retry(verifyAfter) {
		e.emit(Event{Name: EventRetry, Reason: "no reaction to the answer"})
		e.send(e.verifier.answer, "the same answer again", "", "", "")
		return
	}
	e.verifier.pending = false
	e.enterPrompting("no reaction to the answer, sent twice", e.prompt.question)
}

// checkPrompt looks once the output settles for a prompt nothing answers.
func (e *Engine) checkPrompt() {
	e.prompt.checked = true
	q := detectPrompt(e.view.promptText())
	// A screen clai just answered still shows the question: the answer's
	// check (verify) is what follows it, not the prompt detector.
	if q == "" || e.asAnswered() {
		return
	}
	if !e.sender.wake.IsZero() && e.now.Before(e.sender.wake) {
		// A rule's answer waits for its cooldown or min_send_interval: the
		// prompt is answered then, and is no question for a person unless
		// it is still there after.
		e.prompt.again = e.sender.wake
		return
	}
	if until := e.sender.last.Add(redrawWait(e.pb.Settings.Settle)); e.redrawnAnswered(until) {
		e.prompt.again = until
		return
	}
	e.enterPrompting("the program waits at a prompt nothing answers", q)
}

// recheckPrompt looks again at a screen that redrew the question answered,
// once redrawWait has passed without output.
func (e *Engine) recheckPrompt() {
	e.prompt.again = time.Time{}
	e.checkPrompt()
}

// redrawWait is how long after an answer a screen that still asks what it
// answered is taken for the answered question being redrawn (a program marks
// the option taken, ✔, before it moves on): 5s, or 4×settle when longer. A
// coding agent on a loaded machine shows its dialog answered for seconds
// before its next screen.
func redrawWait(settle time.Duration) time.Duration {
	return max(5*time.Second, 4*settle)
}

// redrawnAnswered reports whether, before until, the screen asks with the
// line the last answer answered, still where it was and unchanged since: the
// answered question, redrawn (an option marked as taken), which is no new
// question. The same question asked again on a new line is one. The prompt
// check looks again at until; a question still shown then is asked.
func (e *Engine) redrawnAnswered(until time.Time) bool {
	if !e.sender.sent || e.prompt.answeredLine == "" || !e.now.Before(until) {
		return false
	}
	text := e.view.text()
	line := e.askedLine(text)
	if line != e.prompt.answeredLine {
		return false
	}
	i := bytes.LastIndex(text, []byte(line))
	return i >= 0 && e.stale(text, i, i+len(line))
}

// promptTimeout ends a headless run nobody answered within timeouts.prompt.
func (e *Engine) promptTimeout() {
	e.finish(Prompting, exitcode.Manual, fmt.Sprintf("nobody answered the prompt %q within timeouts.prompt (%s)", e.prompt.question, e.pb.Timeouts.Prompt), true)
}

// nudgeOrHandOver sends the next nudge, or hands over to a person after the last.
func (e *Engine) nudgeOrHandOver() {
	if e.nudger.count < e.pb.Nudge.Max {
		e.nudge()
		return
	}
	e.toManual(ask.Idle, fmt.Sprintf("%d nudges got no output", e.nudger.count))
}

// manualTimeout ends a headless run nobody took over within timeouts.prompt.
func (e *Engine) manualTimeout() {
	e.finish(Manual, exitcode.Manual, fmt.Sprintf("handed over to a person (%s), and nobody took over within timeouts.prompt (%s)", e.handOver.cause, e.pb.Timeouts.Prompt), true)
}

// dryEnd is when a headless dry run that would have sent an answer ends: once
// the program has been quiet for settle after that answer and after its last
// output. The answer never reached it, so whatever it wrote meanwhile (the rest
// of its prompt, an escape sequence in a write of its own, what it shows as it
// starts when the first step sends at once) was written before it waits for it.
// An answer clai holds back (a cooldown, min_send_interval) is decided first.
func (e *Engine) dryEnd() time.Time {
	from := e.sender.last
	if e.lastOutput.After(from) {
		from = e.lastOutput
	}
	return from.Add(e.pb.Settings.Settle)
}

func (e *Engine) enterPrompting(reason, question string) {
	if !asksItself(question) {
		question = e.askedLine(e.view.text())
	}
	question = e.redact(question)
	e.prompt.question = question
	e.prompt.since = e.now
	e.emit(Event{Name: EventPrompt, Excerpt: question, Reason: reason})
	e.setState(Prompting, reason)
	if e.holdPrompt(reason) {
		// A source asks the dialog's questions: a question of the
		// engine's would ask them a second time.
		return
	}
	e.open(ask.Prompt, reason, question)
}

// checkIdle starts nudging, or hands over to a person, after timeouts.idle of silence.
func (e *Engine) checkIdle() {
	idle := e.pb.Timeouts.Idle
	if idle <= 0 || e.now.Before(e.idleFrom().Add(idle)) || e.result != nil {
		return
	}
	if busy(e.view.text()) {
		// A program that says it is working is not idle: look again after
		// another idle period.
		e.busySeen = e.now
		e.emit(Event{Name: EventDefer, Reason: fmt.Sprintf("no output for %s, but the program says it is busy: no nudge", idle)})
		return
	}
	if e.pb.Nudge != nil && e.state == Prompting && len(liveMenus(e.view.text())) > 0 {
		// A nudge's text typed into a dialog picks options with its letters
		// (Codex CLI declines a command with "n", approves it with "y"):
		// the dialog waits for its person instead.
		e.busySeen = e.now
		e.emit(Event{Name: EventDefer, Reason: fmt.Sprintf("no output for %s, but the program shows a dialog that takes keys: no nudge", idle)})
		return
	}
	reason := fmt.Sprintf("no output for %s", idle)
	if e.pb.Nudge == nil {
		e.toManual(ask.Idle, reason)
		return
	}
	e.setState(Nudging, reason)
	e.nudge()
}

// idleFrom is when the program was last seen doing something: its last output,
// the last time its screen said it was busy, or the close of a source's question
// it waited at (no nudge is due while one is open).
func (e *Engine) idleFrom() time.Time {
	from := e.lastOutput
	for _, t := range []time.Time{e.busySeen, e.sources.closed} {
		if t.After(from) {
			from = t
		}
	}
	return from
}

// nudge sends the next entry of the nudge sequence; the last entry repeats.
func (e *Engine) nudge() {
	text := e.nudger.take(e.pb.Nudge.Sequence, e.now, e.pb.Nudge.Gap)
	e.emit(Event{Name: EventNudge, Reason: fmt.Sprintf("nudge %d of %d", e.nudger.count, e.pb.Nudge.Max)})
	e.send(typeText([]byte(text)), text, "", "", "")
}
