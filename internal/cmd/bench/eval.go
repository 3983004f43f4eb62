package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/clai-sh/clai/internal/suggesteval"
	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
)

// evalSteps is how long W13's history is.
const evalSteps = 1500

// daemonPredictor asks a running clai daemon before each step, and sends it
// the step as the hooks do (an event posted to its ingest), waiting until
// the daemon has committed it.
type daemonPredictor struct {
	c       *daemon.Client
	batches int64
	err     error
}

func (p *daemonPredictor) Name() string { return "clai daemon" }

func (p *daemonPredictor) Predict(s suggesteval.Step, last string) []suggesteval.Guess {
	if p.err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reply, err := p.c.Suggest(ctx, daemon.SuggestRequest{Session: s.Session, Cwd: s.Cwd, LastCmd: last, Limit: 5})
	if err != nil {
		p.err = fmt.Errorf("suggest: %w", err)
		return nil
	}
	out := make([]suggesteval.Guess, len(reply.Suggestions))
	for i, sg := range reply.Suggestions {
		out[i] = suggesteval.Guess{Cmd: sg.Command, Template: sg.Template, Confidence: sg.Confidence}
	}
	return out
}

func (p *daemonPredictor) Observe(s suggesteval.Step, _ string) {
	if p.err != nil {
		return
	}
	line, err := hookproto.AppendLine(nil, hookproto.Event{V: hookproto.Version, Type: hookproto.TypeCommand, Session: s.Session, Shell: s.Shell,
		PID: s.PID, TSMillis: s.At.UnixMilli(), Cwd: s.Cwd, Cmd: s.Cmd, Exit: s.Exit, DurationMS: 200})
	if err != nil {
		p.err = err
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	accepted, _, err := p.c.Ingest(ctx, line)
	if err != nil {
		p.err = fmt.Errorf("ingest: %w", err)
		return
	}
	if accepted == 0 {
		return // skipped: nothing to commit
	}
	// The next suggestion is asked of what is committed: wait for the batch.
	for {
		h, err := p.c.Health(ctx)
		if err != nil {
			p.err = fmt.Errorf("healthz: %w", err)
			return
		}
		if h.Batches > p.batches {
			p.batches = h.Batches
			return
		}
		select {
		case <-ctx.Done():
			p.err = fmt.Errorf("the event of %q was not committed within 10 s", s.Cmd)
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// benchEval is W13: a seeded history of three repositories replayed
// against a real daemon, asked before each command, beside the baselines
// computed on the same stream; the hit rates and the daemon's calibration.
func (b suggestBench) benchEval() error {
	fmt.Printf("\nW13 suggestions on a generated history of %d commands over three repositories (Go, web, Python), asked before each:\n", evalSteps)
	dir, err := os.MkdirTemp(b.dir, "w13-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "src")
	world, err := suggesteval.NewWorld(context.Background(), root)
	if err != nil {
		return err
	}
	steps := suggesteval.Generate(evalSeed(), root, evalSteps)
	// The history ends now: nothing of it is past the daemon's retention.
	shift := time.Since(steps[len(steps)-1].At)
	for i := range steps {
		steps[i].At = steps[i].At.Add(shift)
	}
	d, err := b.startDaemon(dir)
	if err != nil {
		return err
	}
	defer d.stop()
	p := &daemonPredictor{c: daemon.NewClient(d.socket)}
	start := time.Now()
	apply := func(s suggesteval.Step) error { return world.Apply(context.Background(), s) }
	res, err := suggesteval.Run(steps, apply, p, &suggesteval.Frequency{}, &suggesteval.Frequency{PerRepo: true}, &suggesteval.Markov{}, &suggesteval.Markov{Fallback: true})
	if err != nil {
		return fmt.Errorf("W13: %w", err)
	}
	if p.err != nil {
		return fmt.Errorf("W13: %w\n%s", p.err, d.output())
	}
	suggesteval.WriteTable(os.Stdout, res)
	fmt.Printf("\nthe daemon's calibration (top guesses by stated confidence; mean gap %.1f points, largest %.0f over tenths of 20 or more):\n", res[0].MeanGap(), res[0].CalibrationGap(20))
	suggesteval.WriteCalibration(os.Stdout, res[0])
	fmt.Printf("(%v for the replay)\n", time.Since(start).Round(time.Second))
	return nil
}

// evalSeed is the seed of W13's history: 13, or $CLAI_EVAL_SEED, which the
// confidence's calibration was fitted on a history of another seed with.
func evalSeed() uint64 {
	if s, err := strconv.ParseUint(os.Getenv("CLAI_EVAL_SEED"), 10, 64); err == nil {
		return s
	}
	return 13
}
