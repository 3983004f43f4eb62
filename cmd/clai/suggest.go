package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/runner/suggest/daemon"
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
		Subcommands: []*cli.Command{suggestRulesCommand(), suggestForgetCommand()},
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the daemon's answer as JSON"},
			&cli.IntFlag{Name: "limit", Value: daemon.DefaultLimit, Usage: fmt.Sprintf("at most this many suggestions (1–%d)", daemon.MaxLimit)},
			&cli.StringFlag{Name: "last", Usage: "the command that ran last (default: the session's last one, as the hooks told the daemon)"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("suggest: takes no arguments (see clai suggest --help)")
			}
			limit := c.Int("limit")
			if limit < 1 || limit > daemon.MaxLimit {
				return usageError("--limit %d: want 1 to %d", limit, daemon.MaxLimit)
			}
			cwd, err := os.Getwd()
			if err != nil {
				return failure(fmt.Errorf("suggest: the current folder: %w", err))
			}
			socket := hookproto.SocketPath()
			reply, err := daemon.NewClient(socket).Suggest(c.Context, daemon.SuggestRequest{
				Session: os.Getenv("CLAI_SESSION_ID"), Cwd: cwd, LastCmd: c.String("last"), Limit: limit,
			})
			if errors.Is(err, daemon.ErrNotRunning) {
				return failure(fmt.Errorf("%w (no one serves %s): start it with `clai daemon &` (see docs/suggest.md)", daemon.ErrNotRunning, socket))
			}
			if err != nil {
				return failure(err)
			}
			if c.Bool("json") {
				enc := json.NewEncoder(c.App.Writer)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(reply)
			}
			return printSuggestions(c.App.Writer, reply.Suggestions)
		}),
	}
}

// printSuggestions prints one suggestion a line: the command, its confidence
// and its reasons, with no control character that could reach the terminal.
func printSuggestions(w io.Writer, s []daemon.Suggestion) error {
	if len(s) == 0 {
		_, err := fmt.Fprintln(w, "no suggestions yet: the daemon learns from the commands the shell hooks send (clai init)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\tCONFIDENCE\tREASONS")
	for _, x := range s {
		fmt.Fprintf(tw, "%s\t%.0f%%\t%s\n", oneLine(x.Command, maxShown), 100*x.Confidence, oneLine(strings.Join(x.Reasons, "; "), maxShown))
	}
	return tw.Flush()
}

// maxShown is how many characters of a command, or of its reasons, a line
// shows.
const maxShown = 200
