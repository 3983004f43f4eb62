package runner

import (
	"context"
	"iter"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/playback"
	"github.com/clai-sh/clai/runner/report"
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
	now, status, err := playback.Feed(ctx, eng, events, t0, s.apply)
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
