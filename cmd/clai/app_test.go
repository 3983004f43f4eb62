package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/exitcode"
)

// Only what clai was given wrong is a usage error (exit 2); an error nobody
// planned for is a failure (exit 1).
func TestExitCode(t *testing.T) {
	t.Parallel()
	unplanned := errors.New("write /dev/stdout: no space left on device")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("interrupt"))
	stopped := &cli.Context{Context: ctx, Command: &cli.Command{Name: "lint"}}
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"no error", nil, exitcode.Done},
		{"an error nobody planned for", unplanned, exitcode.Failed},
		{"a wrapped one", fmt.Errorf("schema: %w", unplanned), exitcode.Failed},
		{"a usage error", usageError("lint: name at least one playbook or folder"), exitcode.Usage},
		{"a failure that was said already", failure(nil), exitcode.Failed},
		{"a run refused for what it was given", &runner.SetupError{Err: errors.New("--var x: the playbook declares no variables")}, exitcode.Usage},
		{"a run refused, wrapped", fmt.Errorf("run: %w", &runner.SetupError{Err: errors.New("choose needs screen")}), exitcode.Usage},
		{"a program that could not start", &runner.StartError{Err: errors.New("exec: no-such: not found")}, exitcode.Failed},
		{"a command a signal stopped", interrupted(stopped), exitcode.Interrupted},
		{"a recorded program's own code", &exitError{code: 42}, 42},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
}

// TestCommandsAreNamedAsTheyBuild holds the table newApp picks one command
// from: each entry's name is its command's, so that "clai NAME" builds the
// command it names and nothing else.
func TestCommandsAreNamedAsTheyBuild(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		if got := c.build().Name; got != c.name {
			t.Errorf("commands() lists %q, whose command is named %q", c.name, got)
		}
		app := newApp(nil, nil, nil, commandNamed([]string{"clai", c.name, "--help"}))
		if len(app.Commands) != 1 || app.Commands[0].Name != c.name {
			t.Errorf("clai %s builds %d commands", c.name, len(app.Commands))
		}
	}
	if all := newApp(nil, nil, nil, commandNamed([]string{"clai", "--help"})); len(all.Commands) != len(commands()) {
		t.Errorf("clai --help builds %d commands, want all %d", len(all.Commands), len(commands()))
	}
}
