package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/clai-sh/clai/runner"
)

// Only what clai was given wrong is a usage error (exit 2); an error nobody
// planned for is a failure (exit 1).
func TestExitCode(t *testing.T) {
	t.Parallel()
	unplanned := errors.New("write /dev/stdout: no space left on device")
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"no error", nil, exitOK},
		{"an error nobody planned for", unplanned, exitFailed},
		{"a wrapped one", fmt.Errorf("schema: %w", unplanned), exitFailed},
		{"a usage error", usageError("lint: name at least one playbook or folder"), exitUsage},
		{"a run refused for what it was given", runError(&runner.SetupError{Err: errors.New("--var x: the playbook declares no variables")}), exitUsage},
		{"a run refused, wrapped", runError(fmt.Errorf("run: %w", &runner.SetupError{Err: errors.New("choose needs screen")})), exitUsage},
		{"a program that could not start", runError(&runner.StartError{Err: errors.New("exec: no-such: not found")}), exitFailed},
		{"a run that failed in a way nobody planned for", runError(errors.New("poll: bad file descriptor")), exitFailed},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", c.name, c.err, got, c.want)
		}
	}
}
