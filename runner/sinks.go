package runner

import (
	"fmt"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// The session's sinks: where each of the engine's events goes once the keys
// it decided are typed (see apply). The event log (an eventlog.Sink, which
// knows the log's fields) and the report take every event, in batches off
// the answer's path (see flush); the desk tells the
// run's watchers; a dry run or a replay tells the person what it would have
// sent; a terminal is told of the hand-over to its person. A sink is in the
// list only when the run has it, so an event costs nothing for what is not
// there.

// event hands one of the engine's events to the sinks. What the session
// itself keeps of it comes first: the question an answer typed at the
// terminal closed (see followAnswer), and an opening question's suggestions,
// part of it before anyone hears of it (on a copy: the engine's event is
// never changed).
func (s *session) event(e *engine.Event) {
	if e.Name == engine.EventAnswer && e.Channel == ask.ChannelTerminal {
		s.typedAnswer = e.Question
	}
	if e.Question != nil && s.o.suggest != nil {
		e = s.withSuggestions(e)
	}
	if s.sinks == nil {
		s.connectSinks()
	}
	for _, sink := range s.sinks {
		sink(e)
	}
}

// connectSinks makes the list of sinks from what the run has. It is made at
// the run's first event, by when the desk, the notices and the terminal are
// all the run will have.
func (s *session) connectSinks() {
	s.sinks = append(s.sinks, s.logAndReport)
	if s.desk != nil {
		s.sinks = append(s.sinks, s.toDesk)
	}
	if s.o.notices != nil {
		s.sinks = append(s.sinks, s.toNotices)
	}
	if s.o.terminal != nil {
		s.sinks = append(s.sinks, s.toTerminal)
	}
}

// logAndReport keeps the event for the event log and the report, which take
// the pending events in batches (see flush).
func (s *session) logAndReport(e *engine.Event) { s.pending = append(s.pending, *e) }

// toDesk tells the run's watchers (see desk.observe).
func (s *session) toDesk(e *engine.Event) { s.desk.observe(s.rec.Start(), e) }

// toNotices tells the person what would have been sent (see notice).
func (s *session) toNotices(e *engine.Event) {
	if e.Name == engine.EventWouldSend {
		s.notice(*e)
	}
}

// toTerminal tells the person at the terminal that they drive now (see
// handOver).
func (s *session) toTerminal(e *engine.Event) {
	if e.Name == engine.EventState && e.State == engine.Manual {
		s.handOver(e.Reason)
	}
}

// notice tells the person what a dry run would have sent, and why.
func (s *session) notice(e engine.Event) {
	who := "rule " + e.Rule
	if e.Step != "" {
		who = "step " + e.Step
	}
	eol, lead := "\n", ""
	if s.o.terminal != nil {
		eol = "\r\n" // the terminal is in raw mode
	}
	switch {
	case s.shown != nil:
		s.shown.fresh()
	case s.o.mirror != nil:
		lead = eol // the program's output may have stopped mid-line
	}
	fmt.Fprintf(s.o.notices, "%sclai: would send %q (%s, matched %q)%s", lead, s.redact.String(e.Sent), who, s.redact.String(e.Excerpt), eol)
}

// handOver tells the person at the terminal, on a line of its own and at once,
// that clai stopped sending and why: from now on they drive.
func (s *session) handOver(reason string) {
	if s.shown != nil {
		s.shown.fresh()
	}
	fmt.Fprintf(s.o.terminal.Out, "clai: MANUAL: %s; nothing is sent automatically any more, you drive now\r\n", s.redact.String(reason))
}

// suggested are the suggestions of the question opened last, by its id.
type suggested struct {
	id   string
	list []ask.Suggestion
}

// withSuggestions is e with its question's suggestions, made when the
// question opens and kept for every later event of it (its answer, its
// close), so that the report and the log have them too. It works on a
// copy: the engine's event and its question stay as the engine made them.
func (s *session) withSuggestions(e *engine.Event) *engine.Event {
	if e.Name == engine.EventQuestion {
		s.suggested = suggested{id: e.Question.ID, list: s.o.suggest(*e.Question)}
	}
	if e.Question.ID != s.suggested.id {
		return e
	}
	q := *e.Question
	q.Suggestions = s.suggested.list
	c := *e
	c.Question = &q
	return &c
}
