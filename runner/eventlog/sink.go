package eventlog

import (
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/runner/engine"
)

// Sink is where a session hands a run's events for its event log: it maps
// each to its line, the fields and the level docs/reports.md gives it, and
// says when it happened. The session knows none of the log's field names.
type Sink struct {
	logger *zap.Logger
	core   zapcore.Core
	mask   func(string) string
	// wall is set when the run's events happen on the wall clock.
	wall bool
	// failed is set once writing a line failed.
	failed bool
	// fields is the reused list of one line's fields.
	fields []zap.Field
}

// NewSink returns the sink of a run's events into logger (any zap logger; New
// makes the event log's). mask hides the secrets in the texts of an event (nil:
// none). wall says that the run's clock is the wall clock: a line's time is
// then when its event happened, which spares reading the clock for each line;
// a virtual clock's times (a test's) are not the wall's, and there a line's
// time is when it is written.
func NewSink(logger *zap.Logger, mask func(string) string, wall bool) *Sink {
	if mask == nil {
		mask = func(s string) string { return s }
	}
	return &Sink{logger: logger, core: logger.Core(), mask: mask, wall: wall}
}

// Level is the level of an event of kind k in the log: debug for what a busy
// run does most (a match, a deferral, a keystroke count), warn for what went
// wrong or was refused, info for the rest.
func Level(k engine.EventKind) zapcore.Level {
	switch k {
	case engine.EventMatch, engine.EventDefer, engine.EventInput:
		return zap.DebugLevel
	case engine.EventDanger, engine.EventTimeout, engine.EventError, engine.EventRefused:
		return zap.WarnLevel
	}
	return zap.InfoLevel
}

// Event writes e, an event of a run that started at start, as one line, if
// the logger takes its level.
func (s *Sink) Event(start time.Time, e *engine.Event) {
	level := Level(e.Name)
	if !s.core.Enabled(level) {
		return
	}
	// Written to the core itself: an event line needs none of what the logger
	// adds to an entry (caller, stack trace, ending the program).
	ent := zapcore.Entry{Level: level, Message: string(e.Name)}
	if s.wall {
		ent.Time = start.Add(e.At)
	} else {
		ent.Time = time.Now()
	}
	fields := s.appendFields(s.fields[:0], e)
	if err := s.core.Write(ent, fields); err != nil && !s.failed {
		// Said once, through the logger, which reports its own failure.
		s.failed = true
		s.Error("log", err)
	}
	// The logger has encoded the fields; the next line reuses their room.
	clear(fields)
	s.fields = fields[:0]
}

// Error logs that what the session did (msg: "send failed", "input",
// "close") failed with err, as an error event.
func (s *Sink) Error(msg string, err error) {
	s.logger.Warn(msg, zap.String("event", string(engine.EventError)), zap.Error(err))
}

// appendFields appends e's fields to fields: event, state and elapsed_ms
// always, the others where e has them; its texts masked.
func (s *Sink) appendFields(fields []zap.Field, e *engine.Event) []zap.Field {
	fields = append(fields,
		zap.String("event", string(e.Name)),
		zap.String("state", string(e.State)),
		zap.Int64("elapsed_ms", e.At.Milliseconds()),
	)
	if e.From != "" {
		fields = append(fields, zap.String("from", string(e.From)))
	}
	if e.Rule != "" {
		fields = append(fields, zap.String("rule", e.Rule))
	}
	if e.Step != "" {
		fields = append(fields, zap.String("step", e.Step))
	}
	if e.Excerpt != "" {
		fields = append(fields, zap.String("excerpt", s.mask(e.Excerpt)))
	}
	if e.Sent != "" {
		fields = append(fields, zap.String("sent", s.mask(e.Sent)))
	}
	if e.Reason != "" {
		fields = append(fields, zap.String("reason", s.mask(e.Reason)))
	}
	if e.Bytes != 0 {
		fields = append(fields, zap.Int("bytes", e.Bytes))
	}
	if e.Screen != "" {
		fields = append(fields, zap.String("screen", s.mask(e.Screen)))
	}
	if e.Question != nil {
		fields = append(fields, zap.String("question", e.Question.ID))
	}
	if e.Channel != "" {
		fields = append(fields, zap.String("channel", e.Channel))
	}
	if e.By != "" {
		fields = append(fields, zap.String("by", e.By))
	}
	return fields
}
