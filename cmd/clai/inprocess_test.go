package main

import (
	"context"
	"io"
	"sync"
)

// inProcess serialises the tests that run clai in the test's own process:
// urfave/cli keeps the --help flag in one package-wide value, which each app
// writes as it parses its arguments, so two apps must not parse at once. (clai
// itself runs one app a process; the CLI scripts run each in a process of its
// own.)
var inProcess sync.Mutex

// runInProcess is run, one at a time.
func runInProcess(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	inProcess.Lock()
	defer inProcess.Unlock()
	return run(ctx, args, stdin, stdout, stderr)
}
