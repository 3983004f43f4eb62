//go:build clai_lean

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/internal/rundir"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/hublink"
	"github.com/clai-sh/clai/runner/humanloop/core"
	"github.com/clai-sh/clai/runner/report"
)

// This file is the lean clai's, built with the tag clai_lean: it links no
// answerer, learned answers, notifications, channels, hub, daemon or
// dashboard, and hands the commands and runs that need them to the full
// clai, clai-full, beside it (docs/performance.md#two-binaries).

// companionName is the full clai's file name.
const companionName = "clai-full"

// companionCommands are the commands of the full clai: each hands its
// whole command line over to it.
func companionCommands() []command {
	return []command{
		{"dashboard", func() *cli.Command { return handedOver("dashboard", dashboardUsage) }},
		{"daemon", func() *cli.Command { return handedOver("daemon", daemonUsage) }},
		{"hub", func() *cli.Command { return handedOver("hub", hubUsage) }},
		{"history", func() *cli.Command { return handedOver("history", historyUsage) }},
	}
}

// suggestSubcommands are clai suggest's, which the full clai has.
func suggestSubcommands() []*cli.Command {
	return []*cli.Command{handedOver("rules", suggestRulesUsage), handedOver("forget", suggestForgetUsage)}
}

// handedOver is a command of the full clai, as the lean one lists it: it
// takes any flags and arguments and hands them over.
func handedOver(name, usage string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, SkipFlagParsing: true, HideHelp: true,
		Action: func(c *cli.Context) error { return execFull(c.Command.FullName()) },
	}
}

// handOver hands the run to the full clai unless it is alone: headless
// (no terminal), waiting for no answer, with no answerer, notification,
// channel, learned suggestion or question source (core.Alone). It returns
// only when the run stays, or with the error of a hand-over that failed.
func handOver(c *cli.Context, pb *playbooks.Playbook, cfg *playbooks.Config, terminal bool) error {
	s := core.Situation{Terminal: terminal, Remote: c.Bool("remote")}
	if !c.Bool("own-channels") {
		s.Hub = func() bool { return hublink.Reachable(hublink.Socket(rundir.Dir())) }
	}
	if core.Alone(pb, cfg, s) {
		return nil
	}
	return execFull("a run with a person, a phone or an answerer")
}

// checkChannels hands a lint of a config with channels to the full clai,
// which has their kinds; a config with none has nothing to read.
func checkChannels(cfg *playbooks.Config) (diag.List, error) {
	if len(cfg.Channels) == 0 {
		return nil, nil
	}
	return nil, execFull("a lint of a config with channels")
}

// runLoop runs pb, which is alone: registered and served, so that clai
// sessions and the dashboard see it, and nothing more.
func runLoop(c *cli.Context, pb *playbooks.Playbook, l loopRun) (*report.Report, error) {
	served := core.NewServer("", c.App.ErrWriter)
	opts := append(l.runner, runner.WithHost(hostName()), runner.WithDesk(served.Ready))
	rep, err := runner.Run(c.Context, pb, opts...)
	served.Close(c.App.ErrWriter)
	return rep, err
}

// execFull replaces this process with the full clai, given the same
// arguments and environment, on the same terminal; it returns only the
// error of one that cannot start. what says what needed it.
func execFull(what string) error {
	path, err := fullClai()
	if err != nil {
		return failure(fmt.Errorf("%s needs the full clai, %s, which is neither beside this clai nor on PATH: make build builds both into bin/ (docs/performance.md#two-binaries)", what, companionName))
	}
	err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	return failure(fmt.Errorf("%s needs the full clai, %s, which did not start: %w", what, path, err))
}

// fullClai finds the full clai: beside this one, else on PATH.
func fullClai() (string, error) {
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), companionName)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return beside, nil
		}
	}
	path, err := exec.LookPath(companionName)
	if err != nil {
		return "", errors.New("not found")
	}
	return path, nil
}
