//go:build e2e

package runner_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/tmux"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// signalOn is a mirror that closes seen once the output shows want.
type signalOn struct {
	want string
	seen chan struct{}
	mu   sync.Mutex
	out  strings.Builder
	once sync.Once
}

func newSignalOn(want string) *signalOn {
	return &signalOn{want: want, seen: make(chan struct{})}
}

func (s *signalOn) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(p)
	if strings.Contains(s.out.String(), s.want) {
		s.once.Do(func() { close(s.seen) })
	}
	return len(p), nil
}

// tmuxCommand runs a tmux command on the test's server.
func tmuxCommand(t *testing.T, sock string, args ...string) {
	t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
}

// A pane killed while clai drives it ends the run as "the pane closed", never as
// a program that failed with exit -1: with a step still waiting the run failed
// (exit 1); a person's pane that clai only watched over is done (exit 0); the
// program of clai's own session, whose pane was killed, did not end by itself
// (exit 1). How the program ended is not known, so the report has no child.
// No playbook says settings.match: a tmux pane is matched on its screen.
func TestRunEndsWhenThePaneCloses(t *testing.T) {
	t.Parallel()
	const program = `echo ready; read a; echo "got $a"; sleep 60`
	for _, tc := range []struct {
		name   string
		target bool
		rules  string
		kill   []string
		state  engine.State
		code   int
		reason string
	}{
		{"target pane killed while a step waits", true, "", []string{"kill-window", "-t", "work:0"}, engine.Failed, exitcode.Failed, `the pane closed while step steps[1] waited for "never"`},
		{"target pane killed while clai watches over it", true, "rules: [{name: more, match: never, line: y, limit: 1}]\n", []string{"kill-pane", "-t", "work:0.0"}, engine.Done, exitcode.Done, "the pane closed"},
		{"own session killed while a step waits", false, "", []string{"kill-session", "-t", "clai-own"}, engine.Failed, exitcode.Failed, `the pane closed while step steps[1] waited for "never"`},
		{"own session killed once the steps are done", false, "rules: [{name: more, match: never, line: y, limit: 1}]\n", []string{"kill-session", "-t", "clai-own"}, engine.Failed, exitcode.Failed, "the pane closed before its program ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sock := testprog.TmuxServer(t)
			// Another session keeps the server up when a test kills the last pane of
			// its own.
			tmuxCommand(t, sock, "new-session", "-d", "-s", "other", "sleep 60")
			spawn := "spawn:\n  tmux: {session: clai-own}\n  shell: '" + program + "'\n"
			steps := "steps:\n  - {expect: ready, line: go}\n"
			if tc.target {
				tmuxCommand(t, sock, "new-session", "-d", "-s", "work", "sh", "-c", program)
				spawn = "spawn:\n  tmux: {target: \"work:0.0\"}\n"
			}
			if tc.rules == "" {
				steps += "  - expect: never\n"
			}
			pb := playbook(t, "%s", "version: 1\nname: pane\n"+spawn+"settings: {settle: 50ms}\n"+steps+tc.rules)
			if pb.Settings.Match != "screen" {
				t.Fatalf("spawn.tmux matches on %q, want screen", pb.Settings.Match)
			}
			start := func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
				return tmux.Start(ctx, tmux.Options{Target: s.TmuxTarget, Session: s.TmuxSession, Argv: s.Argv, Socket: sock})
			}
			mirror := newSignalOn("got go")
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			type result struct {
				rep *report.Report
				err error
			}
			done := make(chan result, 1)
			go func() {
				rep, err := runner.Run(ctx, pb, runner.WithStarter(start), runner.WithMirror(mirror))
				done <- result{rep, err}
			}()
			select {
			case <-mirror.seen:
			case r := <-done:
				t.Fatalf("the run ended before the answer arrived: %v, %+v", r.err, r.rep)
			}
			tmuxCommand(t, sock, tc.kill...)
			r := <-done
			if r.err != nil {
				t.Fatalf("run: %v", r.err)
			}
			rep := r.rep
			wantOutcome(t, rep, tc.state, tc.code)
			if !strings.HasPrefix(rep.Reason, tc.reason) {
				t.Errorf("reason %q, want it to start with %q", rep.Reason, tc.reason)
			}
			if rep.Child != nil {
				t.Errorf("child %+v: how the program in a closed pane ended is not known", *rep.Child)
			}
		})
	}
}
