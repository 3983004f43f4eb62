//go:build e2e

package runner_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/tmux"
	"github.com/clai-sh/clai/runner/engine"
)

// TestRunThroughTmux drives a program in a tmux session of clai's own, with the
// same engine and screen matching as a pseudo-terminal.
func TestRunThroughTmux(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	pb := playbook(t, `
version: 1
name: tmux
spawn:
  tmux: {session: clai-test}
  shell: 'printf "\033[2J\033[3;1HShip\033[3;6Hit?\033[3;10H"; read a; echo "shipped $a"'
  size: {rows: 10, cols: 60}
settings: {match: screen, settle: 150ms}
steps:
  - {expect: "Ship it?", line: "yes"}
  - expect: "shipped yes"
  - expect: eof
`)
	start := func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
		return tmux.Start(ctx, tmux.Options{Session: s.TmuxSession, Argv: s.Argv, Rows: int(s.Rows), Cols: int(s.Cols), Socket: sock})
	}
	rep := run(t, pb, runner.WithStarter(start))
	wantOutcome(t, rep, engine.Done, 0)
	// Each decision carries the screen it was taken on.
	for _, e := range rep.Timeline {
		if e.Event == "send" && !strings.Contains(e.Screen, "Ship it?") {
			t.Errorf("send at %.1fms without its screen: %q", e.TimeMS, e.Screen)
		}
		if e.Event == "state" && e.Screen != "" {
			t.Errorf("a state change to %s carries a screen", e.State)
		}
	}
}

// A target pane keeps its own size: clai reads the screen at the pane's size, so a
// prompt drawn past column 80 of a wide pane is still one line.
func TestRunDrivesAWideTmuxPane(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	if out, err := exec.Command("tmux", "-L", sock, "new-session", "-d", "-s", "work", "-x", "120", "-y", "30",
		"sh", "-c", `printf "\033[2J\033[20;70HProceed with the deploy?"; read a; printf "\033[22;1Hdeployed $a"; sleep 60`).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	pb := playbook(t, `
version: 1
name: wide
spawn:
  tmux: {target: "work:0.0"}
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Proceed with the deploy?", line: "yes"}
  - expect: "deployed yes"
`)
	start := func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
		return tmux.Start(ctx, tmux.Options{Target: s.TmuxTarget, Socket: sock})
	}
	rep := run(t, pb, runner.WithStarter(start))
	wantOutcome(t, rep, engine.Done, 0)
	if err := exec.Command("tmux", "-L", sock, "has-session", "-t", "work").Run(); err != nil {
		t.Fatal("the run ended the person's pane")
	}
}
