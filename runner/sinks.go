package runner

import (
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// The session's sinks: where each of the engine's events goes once the keys
// it decided are typed (see apply). The event log and the report take every
// event, in batches off the answer's path (see flush); the desk tells the
// run's watchers; a dry run or a replay tells the person what it would have
// sent; a terminal is told of the hand-over to its person. A sink is in the
// list only when the run has it, so an event costs nothing for what is not
// there.

// event hands one of the engine's events to the sinks. What the session
// itself keeps of it comes first: the question an answer typed at the
// terminal closed (see followAnswer), and an opening question's suggestions,
// part of it before anyone hears of it.
func (s *session) event(e *engine.Event) {
	if e.Name == engine.EventAnswer && e.Channel == ask.ChannelTerminal {
		s.typedAnswer = e.Question
	}
	if e.Name == engine.EventQuestion && e.Question != nil && s.o.suggest != nil {
		e.Question.Suggestions = s.o.suggest(*e.Question)
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
