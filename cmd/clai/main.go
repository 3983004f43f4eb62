// Command clai runs interactive terminal programs from YAML playbooks: it answers
// their prompts, refuses dangerous ones, and lints playbooks for CI.
package main

import (
	"context"
	"os"
	"os/signal"
	"slices"
	"strings"
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
// The commands that end in a few milliseconds and leave nothing behind
// (endsAtOnce) do not catch signals: a signal ends them by its own default
// action, as at once. Catching one costs the Go runtime a thread of its own,
// a good part of such a command's start-up.
//
// clai adopts what its program abandons (pty.AdoptOrphans): a daemon the program
// starts is re-parented to clai, not to init, and ends with the run.
func runProcess() int {
	_ = pty.AdoptOrphans() // without it, the cgroup and the session still track
	ctx := context.Background()
	if !endsAtOnce(os.Args) {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
	}
	return run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
}

// endsAtOnce reports whether args run a command that asks or prints one
// thing and ends, with nothing to clean up when a signal stops it: clai
// version, clai sessions, clai suggest (not its subcommands) and clai
// answer without --wait.
func endsAtOnce(args []string) bool {
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "version", "sessions":
		return true
	case "suggest":
		return len(args) < 3 || (args[2] != "rules" && args[2] != "forget")
	case "answer":
		return !slices.ContainsFunc(args[2:], func(a string) bool {
			return a == "--wait" || strings.HasPrefix(a, "--wait=") || a == "-wait" || strings.HasPrefix(a, "-wait=")
		})
	}
	return false
}
