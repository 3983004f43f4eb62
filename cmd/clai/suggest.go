package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/runner/suggest/hookproto"
)

func suggestCommand() *cli.Command {
	return &cli.Command{
		Name:  "suggest",
		Usage: "the next commands for this shell, from its history, with their reasons and confidence",
		Description: "Asks the daemon (clai daemon) for the commands that most likely come next in this shell:\n" +
			"its session ($CLAI_SESSION_ID, set by the hooks of clai init), its folder and repository, and its\n" +
			"last command. Exit 1 with a message when the daemon is not running.",
		// The answers learned from people: rules from them, and forgetting.
		Subcommands: suggestSubcommands(),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the daemon's answer as JSON"},
			&cli.IntFlag{Name: "limit", Value: hookproto.DefaultLimit, Usage: fmt.Sprintf("at most this many suggestions (1–%d)", hookproto.MaxLimit)},
			&cli.StringFlag{Name: "last", Usage: "the command that ran last (default: the session's last one, as the hooks told the daemon)"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("suggest: takes no arguments (see clai suggest --help)")
			}
			limit := c.Int("limit")
			if limit < 1 || limit > hookproto.MaxLimit {
				return usageError("--limit %d: want 1 to %d", limit, hookproto.MaxLimit)
			}
			cwd, err := os.Getwd()
			if err != nil {
				return failure(fmt.Errorf("suggest: the current folder: %w", err))
			}
			socket := hookproto.SocketPath()
			reply, err := hookproto.Suggest(c.Context, hookproto.UnixSocket{Path: socket}, hookproto.SuggestRequest{
				Session: os.Getenv("CLAI_SESSION_ID"), Cwd: cwd, LastCmd: c.String("last"), Limit: limit,
			})
			if errors.Is(err, hookproto.ErrNotRunning) {
				return failure(fmt.Errorf("%w: start it with `clai daemon &` (see docs/suggest.md)", err))
			}
			if err != nil {
				return failure(err)
			}
			return hookproto.WriteSuggestions(c.App.Writer, reply, c.Bool("json"))
		}),
	}
}
