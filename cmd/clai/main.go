// Command clai runs interactive terminal programs from YAML playbooks: it answers
// their prompts, refuses dangerous ones, and lints playbooks for CI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/clai-sh/clai/runner/driver/pty"
)

func main() {
	os.Exit(runProcess())
}

// runProcess runs clai as a process: os.Args and the standard streams, with
// SIGINT, SIGTERM and SIGHUP cancelling the run. SIGHUP too: when the user's
// terminal goes away clai still ends the program, waits for it and writes the log
// and the report.
//
// clai adopts what its program abandons (pty.AdoptOrphans): a daemon the program
// starts is re-parented to clai, not to init, and ends with the run.
func runProcess() int {
	_ = pty.AdoptOrphans() // without it, the cgroup and the session still track
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
}
