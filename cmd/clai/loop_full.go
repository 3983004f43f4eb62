//go:build !clai_lean

package main

import (
	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/internal/rundir"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/hublink"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/report"
)

// This file is the full clai's: every command, and a run with the whole
// human loop (docs/performance.md#two-binaries).

// companionCommands are the commands the lean clai hands to this one.
func companionCommands() []command {
	return []command{{"dashboard", dashboardCommand}, {"daemon", daemonCommand}, {"hub", hubCommand}, {"history", historyCommand}}
}

// suggestSubcommands are clai suggest's: the answers learned from people,
// rules from them, and forgetting.
func suggestSubcommands() []*cli.Command {
	return []*cli.Command{suggestRulesCommand(), suggestForgetCommand()}
}

// checkChannels reads the settings of cfg's channels as their kinds do:
// the findings of clai lint.
func checkChannels(cfg *playbooks.Config) (diag.List, error) { return channel.Check(cfg.Channels), nil }

// handOver keeps every run in this clai, which has the whole human loop.
func handOver(*cli.Context, *playbooks.Playbook, *playbooks.Config, bool) error { return nil }

// runLoop runs pb with the human loop it and the user config ask for.
func runLoop(c *cli.Context, pb *playbooks.Playbook, l loopRun) (*report.Report, error) {
	return humanloop.Run(c.Context, pb, humanloop.Options{
		Config: l.cfg, Logger: l.logger, DryRun: c.Bool("dry-run"), Remote: c.Bool("remote"),
		Headless: l.headless, Quiet: c.Bool("quiet"), Notices: c.App.ErrWriter,
		Command: l.command, Runner: l.runner,
		Hub: runHub(c.Bool("own-channels")), Host: hostName(),
	})
}

// runHub is the hub a run links to; nil when it owns its channels.
func runHub(own bool) *humanloop.Hub {
	if own {
		return nil
	}
	return &humanloop.Hub{Socket: hublink.Socket(rundir.Dir()), Start: startHub}
}
