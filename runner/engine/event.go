package engine

// EventKind is the kind of an Event. Its text is the event's name in the event
// log (`event`) and in a report's timeline; docs/reports.md lists every kind.
type EventKind string

// The kinds of event the engine and the session emit.
const (
	// EventStart: the run starts (reason: the playbook's name).
	EventStart EventKind = "start"
	// EventState: a state change, from From to State, with a reason.
	EventState EventKind = "state"
	// EventSend: an answer was sent to the program.
	EventSend EventKind = "send"
	// EventWouldSend: an answer would have been sent (a dry run or a replay).
	EventWouldSend EventKind = "would-send"
	// EventMatch: a pattern matched without an answer: an expect step, the end
	// of the output a step waits for, a rule over its limit, a ticked checklist
	// option.
	EventMatch EventKind = "match"
	// EventDefer: something due waits: an answer for a cooldown or
	// min_send_interval, a deny refusal for its prompt, a nudge for a program
	// that says it is busy.
	EventDefer EventKind = "defer"
	// EventRetry: the program did not react to an answer, which is sent once more.
	EventRetry EventKind = "retry"
	// EventDanger: a danger rule matched (reason: its action).
	EventDanger EventKind = "danger"
	// EventPrompt: the program waits at a question nothing answers.
	EventPrompt EventKind = "prompt"
	// EventNudge: a nudge was sent after timeouts.idle of silence.
	EventNudge EventKind = "nudge"
	// EventInput: the person at the terminal typed (a byte count, never the content).
	EventInput EventKind = "input"
	// EventInterrupt: Ctrl-C from the person at the terminal.
	EventInterrupt EventKind = "interrupt"
	// EventTimeout: timeouts.total or a step's timeout was reached.
	EventTimeout EventKind = "timeout"
	// EventError: the playbook cannot go on as written: a when or a template
	// failed at run time, an action needs screen matching, a choose gave up;
	// or the session failed to write the log, write to the program or close it.
	EventError EventKind = "error"
	// EventQuestion: a question for a person opened (reason: why; excerpt:
	// its text).
	EventQuestion EventKind = "question"
	// EventAnswer: a person answered the open question (sent: what was
	// typed; reason: whose decision it was).
	EventAnswer EventKind = "answer"
	// EventClosed: the open question closed without an answer (reason:
	// moved-on, the program went on by itself; ended, the run ended).
	EventClosed EventKind = "closed"
	// EventRefused: an answer was refused and not typed (reason: the code
	// and why).
	EventRefused EventKind = "refused"
	// EventExit: the program ended (reason: its exit status).
	EventExit EventKind = "exit"
	// EventFinish: the run ended (state: the outcome, with a reason).
	EventFinish EventKind = "finish"
)

// IsDecision reports whether an event of kind k is one where clai decided
// something about what was on the screen, so the event carries the screen it
// decided on and a report shows the excerpt.
func (k EventKind) IsDecision() bool {
	switch k {
	case EventSend, EventWouldSend, EventDanger, EventPrompt, EventMatch:
		return true
	}
	return false
}
