package runner

import (
	"fmt"
	"time"
)

// timers handles everything a Tick can set off, in order of precedence.
func (e *Engine) timers() {
	t := e.pb.Timeouts
	now := e.now
	if t.Total > 0 && !now.Before(e.start.Add(t.Total)) {
		e.emit(Event{Name: "timeout", Reason: "timeouts.total"})
		e.finish(TimedOut, ExitTimeout, fmt.Sprintf("the run reached timeouts.total (%s); last output: %q", t.Total, e.tail()), true)
		return
	}
	if s := e.currentStep(); s != nil && e.state != Manual && s.Waits() && s.Timeout > 0 &&
		!now.Before(e.stepSince.Add(s.Timeout)) {
		e.emit(Event{Name: "timeout", Step: stepName(s), Reason: "step timeout"})
		e.finish(TimedOut, ExitTimeout, fmt.Sprintf("step %s waited %s for %s; last output: %q", stepName(s), s.Timeout, describeWait(s), e.tail()), true)
		return
	}
	quiet := now.Sub(e.lastOutput)
	settle := e.pb.Settings.Settle
	if e.dryWait && e.wake.IsZero() && !now.Before(e.dryEnd()) {
		e.finish(Done, ExitDone, fmt.Sprintf("dry run: the program waits for the answer clai would have sent (%q)", e.dryAnswer), true)
		return
	}
	if !e.wake.IsZero() && !now.Before(e.wake) {
		e.wake = time.Time{}
		e.evaluate()
	}
	if e.refusal != nil && quiet >= settle {
		e.refuse(true)
	}
	if e.verify && !now.Before(e.verifyAt()) {
		if !e.retried {
			e.retried = true
			e.emit(Event{Name: "retry", Reason: "no reaction to the answer"})
			e.send(e.lastAnswer, "the same answer again", "", "", "")
			e.verifyWait = verifyAfter
		} else {
			e.verify = false
			e.enterPrompting("no reaction to the answer, sent twice", e.question)
		}
	}
	switch e.state {
	case Running:
		if !e.promptChecked && quiet >= settle {
			e.promptChecked = true
			// A screen clai just answered still shows the question: the answer's
			// check (verify) is what follows it, not the prompt detector.
			if q := detectPrompt(e.view()); q != "" && !e.answeredScreen() {
				e.enterPrompting("the program waits at a prompt nothing answers", q)
			}
		}
		e.checkIdle()
	case Prompting:
		if t.Prompt > 0 && !e.cfg.Interactive && !now.Before(e.promptSince.Add(t.Prompt)) {
			e.finish(Prompting, ExitManual, fmt.Sprintf("nobody answered the prompt %q within timeouts.prompt (%s)", e.question, t.Prompt), true)
			return
		}
		e.checkIdle()
	case Nudging:
		if !now.Before(e.nextNudge) {
			if e.nudges < e.pb.Nudge.Max {
				e.nudge()
			} else {
				e.toManual(fmt.Sprintf("%d nudges got no output", e.nudges))
			}
		}
	case Manual:
		if t.Prompt > 0 && !e.cfg.Interactive && !now.Before(e.manualDeadline()) {
			e.finish(Manual, ExitManual, fmt.Sprintf("handed over to a person (%s), and nobody took over within timeouts.prompt (%s)", e.manualCause, t.Prompt), true)
		}
	}
}

// dryEnd is when a headless dry run that would have sent an answer ends: once
// the program has been quiet for settle after that answer and after its last
// output. The answer never reached it, so whatever it wrote meanwhile (the rest
// of its prompt, an escape sequence in a write of its own, what it shows as it
// starts when the first step sends at once) was written before it waits for it.
// An answer clai holds back (a cooldown, min_send_interval) is decided first.
func (e *Engine) dryEnd() time.Time {
	from := e.lastSend
	if e.lastOutput.After(from) {
		from = e.lastOutput
	}
	return from.Add(e.pb.Settings.Settle)
}

func (e *Engine) enterPrompting(reason, question string) {
	question = e.redact(question)
	e.question = question
	e.promptSince = e.now
	e.emit(Event{Name: "prompt", Excerpt: question, Reason: reason})
	e.setState(Prompting, reason)
}

// checkIdle starts nudging, or hands over to a person, after timeouts.idle of silence.
func (e *Engine) checkIdle() {
	idle := e.pb.Timeouts.Idle
	if idle <= 0 || e.now.Before(e.idleFrom().Add(idle)) || e.result != nil {
		return
	}
	if busy(e.view()) {
		// A program that says it is working is not idle: look again after
		// another idle period.
		e.busySeen = e.now
		e.emit(Event{Name: "defer", Reason: fmt.Sprintf("no output for %s, but the program says it is busy: no nudge", idle)})
		return
	}
	reason := fmt.Sprintf("no output for %s", idle)
	if e.pb.Nudge == nil {
		e.toManual(reason)
		return
	}
	e.setState(Nudging, reason)
	e.nudge()
}

// idleFrom is when the program was last seen doing something: its last output, or
// the last time its screen said it was busy.
func (e *Engine) idleFrom() time.Time {
	if e.busySeen.After(e.lastOutput) {
		return e.busySeen
	}
	return e.lastOutput
}

// nudge sends the next entry of the nudge sequence; the last entry repeats.
func (e *Engine) nudge() {
	seq := e.pb.Nudge.Sequence
	text := seq[min(e.nudges, len(seq)-1)]
	e.nudges++
	e.lastNudge = text
	e.nextNudge = e.now.Add(e.pb.Nudge.Gap)
	e.emit(Event{Name: "nudge", Reason: fmt.Sprintf("nudge %d of %d", e.nudges, e.pb.Nudge.Max)})
	e.send(typeText([]byte(text)), text, "", "", "")
}
