package runner

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/driver"
)

// ReplayEvent is one event of a recorded session (asciicast v2).
type ReplayEvent struct {
	// At is the time since the recording started.
	At time.Duration
	// Kind is 'o' output, 'i' input, 'r' resize or 'm' marker.
	Kind byte
	Data string
}

// Markers clai writes into the recordings of its own runs. An input event right
// after MarkerSend is one of clai's answers, not a person's keystrokes; MarkerExit
// carries the program's exit code ("exit 3").
const (
	MarkerSend = "clai-send"
	MarkerExit = "exit"
)

// Replay feeds a recorded session through the engine in virtual time: timeouts
// fire by recorded time, nothing is spawned and nothing is sent (every answer is a
// would-send), and the report's exit code is the one the live run would have had.
// What a person typed in the recording reaches the engine as their input; clai's
// own answers in a recording of a clai run are left out, since the engine makes its
// decisions afresh. A recording that does not say how the program ended is taken
// to end with exit status 0.
func Replay(pb *playbooks.Playbook, events []ReplayEvent, opts ...Option) (*Report, error) {
	o := options{logger: zap.NewNop()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := Check(pb); err != nil {
		return nil, err
	}
	vars, err := mergeVars(pb, o.vars)
	if err != nil {
		return nil, err
	}
	redact := NewRedactor(nil, nil)
	s := &session{o: o, pb: pb, rec: newRecorder(pb, true, redact), redact: redact}
	s.rec.report.Mode = "replay"
	engine := NewEngine(pb, Config{Vars: vars, Environ: EnvMap(o.environ), DryRun: true, Replay: true})
	s.engine = engine

	t0 := time.Unix(0, 0).UTC()
	now := t0
	s.rec.start = t0
	s.apply(engine.Start(now))
	// advance ticks the engine at each of its deadlines up to t.
	advance := func(t time.Time) {
		for s.result == nil {
			next, ok := engine.Deadline()
			if !ok || next.After(t) {
				break
			}
			if next.After(now) {
				now = next
			}
			s.apply(engine.Tick(now))
		}
		if t.After(now) {
			now = t
		}
	}
	status := driver.ExitStatus{}
	clais := false
	for _, ev := range events {
		if s.result != nil {
			break
		}
		advance(t0.Add(ev.At))
		if s.result != nil {
			break
		}
		switch ev.Kind {
		case 'o':
			s.apply(engine.Output(now, []byte(ev.Data)))
		case 'i':
			if clais {
				clais = false
				continue
			}
			if n := strings.Count(ev.Data, "\x03"); n > 0 {
				for range n {
					s.apply(engine.Interrupt(now))
				}
				continue
			}
			s.apply(engine.Input(now, len(ev.Data)))
		case 'm':
			switch label := ev.Data; {
			case label == MarkerSend:
				clais = true
			case strings.HasPrefix(label, MarkerExit+" "):
				code, err := strconv.Atoi(strings.TrimPrefix(label, MarkerExit+" "))
				if err != nil {
					return nil, fmt.Errorf("replay: marker %q: %w", label, err)
				}
				status.Code = code
			}
		}
	}
	if s.result == nil {
		s.apply(engine.Exit(now, status))
	}
	s.flush()
	child := &status
	if s.result.Child == nil {
		child = nil
	}
	return s.rec.finish(*s.result, engine.Fired(), child, now), nil
}
