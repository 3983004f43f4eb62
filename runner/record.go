package runner

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/driver"
)

// Record runs the program spawn describes in a pseudo-terminal for a person
// to drive, and records the session into the recording WithRecording or
// WithRecordingOnStart gives: the program's output, what the person types as
// they type it (passwords too), and size changes. clai only watches: it knows
// no secrets, answers nothing, and a Ctrl-C is the program's alone. The
// session ends with the program; cancelling ctx ends the program, whose last
// output is still recorded. Of the options, those of a playbook (WithVars,
// WithArgs, WithDryRun, WithNotices) mean nothing here. It returns how the
// program ended; the error is a *StartError for a program that could not
// start.
func Record(ctx context.Context, spawn Spawn, opts ...Option) (driver.ExitStatus, error) {
	if spawn.TmuxTarget != "" || spawn.TmuxSession != "" {
		return driver.ExitStatus{}, &SetupError{Err: errors.New("record: the program runs in a pseudo-terminal of its own, not in tmux")}
	}
	o := liveOptions(opts)
	o.watch, o.dryRun, o.noTimeline = true, false, true
	rep, err := live(ctx, o, watching(spawn.Argv), nil, nil, spawn)
	if err != nil {
		return driver.ExitStatus{}, err
	}
	if rep.Child == nil {
		return driver.ExitStatus{}, errors.New("how the program ended is not known")
	}
	return driver.ExitStatus{Code: rep.Child.Code, Signal: rep.Child.Signal}, nil
}

// watching is the playbook of a session a person drives: no steps, rules,
// danger rules, nudges or timeouts, so that the engine decides nothing and the
// session lasts as long as the program.
func watching(argv []string) *playbooks.Playbook {
	return &playbooks.Playbook{
		Version:  1,
		Name:     "record",
		Spawn:    playbooks.Spawn{Command: argv},
		Settings: playbooks.Settings{Match: playbooks.MatchStream, Settle: playbooks.DefaultSettle, Window: playbooks.DefaultWindow},
	}
}

// recordingFlush is how often a session writes its recording out to the
// file, so that little of it is lost if clai is killed.
const recordingFlush = time.Second

// flushEvery writes r out every period until the function it returns is
// called. (The writer is safe for use by several goroutines; an error is kept
// by it, and its Close returns it.)
func flushEvery(r *cast.Writer, period time.Duration) (stop func()) {
	ticker := time.NewTicker(period)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ticker.C:
				_ = r.Flush()
			case <-done:
				return
			}
		}
	}()
	return func() {
		ticker.Stop()
		close(done)
		wg.Wait()
	}
}
