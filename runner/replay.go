package runner

import (
	"context"
	"fmt"
	"iter"
	"os"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/report"
)

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
// to end with exit status 0. The playbook's secrets that can be read (from the
// environment WithEnviron sets, by default clai's own, or from their files) are
// masked in everything the replay writes; one that cannot be read is no error.
// It reads the recording an event at a time as it goes, so a recording of any
// length replays in bounded memory; a malformed line ends the replay with its
// error. When ctx ends, the replay ends as an interrupted run does.
func Replay(ctx context.Context, pb *playbooks.Playbook, r *cast.Reader, opts ...Option) (*report.Report, error) {
	return replay(ctx, pb, r.Header(), r.All(), opts)
}

func replay(ctx context.Context, pb *playbooks.Playbook, header cast.Header, events iter.Seq2[cast.Event, error], opts []Option) (*report.Report, error) {
	o := options{logger: zap.NewNop()}
	for _, opt := range opts {
		opt(&o)
	}
	if refused := pb.Refusals(); len(refused) > 0 {
		return nil, &SetupError{Err: refused}
	}
	vars, err := mergeVars(pb, o.vars)
	if err != nil {
		return nil, &SetupError{Err: err}
	}
	environ := o.environ
	if environ == nil {
		environ = os.Environ()
	}
	secrets, _ := readSecrets(pb, environ, true)
	redact := redact.New(nil, secretValues(secrets))
	s := newSession(o, pb, report.NewBuilder(pb, report.Config{Mode: report.ModeReplay, NoTimeline: o.noTimeline, Mask: redact.String}), redact)
	eng := engine.NewEngine(pb, engine.Config{Vars: vars, Environ: envMap(o.environ), DryRun: true, Replay: true,
		Rows: header.Height, Cols: header.Width, Redact: redact.String, Project: projectDir("")})
	s.engine = eng

	// Virtual time starts when the recording did, if it says when.
	t0 := time.Unix(header.Timestamp, 0).UTC()
	s.rec.SetStart(t0)
	now, status, err := feed(ctx, eng, events, t0, s.apply)
	if err != nil {
		return nil, err
	}
	s.flush()
	child := &status
	if s.result.Child == nil {
		child = nil
	}
	return s.rec.Finish(*s.result, eng.Fired(), child, now), nil
}

// isTerminalReply reports whether recorded input is a terminal's report (device
// attributes, cursor position, mode status, a DCS string) rather than keys.
func isTerminalReply(s string) bool {
	switch {
	case strings.HasPrefix(s, "\x1bP"), strings.HasPrefix(s, "\x1b]"):
		return true
	case strings.HasPrefix(s, "\x1b["):
		last := s[len(s)-1]
		return last == 'c' || last == 'R' || last == 'y' || last == 'n'
	}
	return false
}

// typed observes what a person typed at t: each Ctrl-C in it as an interrupt,
// or else the number of bytes.
func typed(ctx context.Context, st *engine.Stepper, t time.Time, data string) {
	if n := strings.Count(data, "\x03"); n > 0 {
		for range n {
			st.Interrupt(ctx, t)
		}
		return
	}
	st.Input(ctx, t, len(data))
}

// readMarker reads one of clai's markers: MarkerSend says the next input is
// clai's own answer; MarkerExit carries the program's exit code. Other labels
// are notes for a person.
func readMarker(label string, clais *bool, status *engine.ExitStatus) error {
	switch {
	case label == MarkerSend:
		*clais = true
	case strings.HasPrefix(label, MarkerExit+" "):
		code, err := strconv.Atoi(strings.TrimPrefix(label, MarkerExit+" "))
		if err != nil {
			return fmt.Errorf("replay: marker %q: %w", label, err)
		}
		status.Code = code
	}
	return nil
}

// feed plays recorded events into the engine in virtual time from t0, ticking it
// at each of its deadlines on the way, and ends with the program's exit unless the
// engine ended the run first (or ctx ended, which interrupts it). apply receives
// the actions of every call. An error reading the events ends the feed with it.
func feed(ctx context.Context, eng *engine.Engine, events iter.Seq2[cast.Event, error], t0 time.Time, apply func([]engine.Action)) (time.Time, engine.ExitStatus, error) {
	st := engine.NewStepper(eng, t0, apply)
	st.Start()
	status := engine.ExitStatus{}
	clais := false
	for ev, err := range events {
		if err != nil {
			return st.Now(), status, err
		}
		// Each event moves time to its own, and the engine observes what it
		// should see at that time.
		at := t0.Add(ev.At())
		switch {
		case ev.Kind == cast.KindOutput:
			st.Output(ctx, at, []byte(ev.Data))
		case ev.Kind == cast.KindInput && clais:
			// clai's own answer: the engine decides afresh.
			clais = false
			st.AdvanceTo(ctx, at)
		case ev.Kind == cast.KindInput && isTerminalReply(ev.Data):
			// The terminal answered a query: not a person's keystrokes.
			st.AdvanceTo(ctx, at)
		case ev.Kind == cast.KindInput:
			typed(ctx, st, at, ev.Data)
		case ev.Kind == cast.KindMarker:
			st.AdvanceTo(ctx, at)
			if eng.Result() != nil {
				break
			}
			if err := readMarker(ev.Data, &clais, &status); err != nil {
				return st.Now(), status, err
			}
		default:
			// A resize, or an event of a newer writer: only time passes.
			st.AdvanceTo(ctx, at)
		}
		if eng.Result() != nil {
			break
		}
	}
	if eng.Result() == nil {
		st.Exit(ctx, st.Now(), status)
	}
	return st.Now(), status, nil
}
