//go:build !clai_lean

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/runner/suggest/daemon"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:            "history",
		Usage:           historyUsage,
		HideHelpCommand: true,
		Subcommands:     []*cli.Command{historyForgetCommand()},
	}
}

func historyForgetCommand() *cli.Command {
	return &cli.Command{
		Name:      "forget",
		Usage:     "forget the commands that contain PATTERN, and all that was learnt from them",
		ArgsUsage: "PATTERN | -",
		Description: "Removes from the suggestion database every command whose text, template or one of whose words\n" +
			"contains PATTERN (with --regex: that the RE2 expression PATTERN matches), then learns the transitions\n" +
			"and scores again from the commands kept. Nothing of the commands forgotten is left in the database\n" +
			"files: deleted rows are overwritten, the write-ahead log is truncated, and the file is vacuumed when\n" +
			"a quarter of it is free. With a daemon running, it asks the daemon; else it works on the database\n" +
			"itself, holding the daemon's lock. PATTERN - reads the pattern from the first line of stdin, so that\n" +
			"a secret stays out of the process list and the shell's own history.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "regex", Usage: "PATTERN is an RE2 regular expression, matched anywhere in a command"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("history forget: takes one PATTERN, or - to read it from stdin (see clai history forget --help)")
			}
			req := daemon.ForgetRequest{Pattern: c.Args().First(), Regex: c.Bool("regex")}
			if req.Pattern == "-" {
				p, err := readPattern(c.App.Reader)
				if err != nil {
					return usage(err)
				}
				req.Pattern = p
			}
			if _, err := req.Matcher(); err != nil {
				return usage(err)
			}
			db, err := suggestDatabase()
			if err != nil {
				return failure(err)
			}
			socket, err := daemonSocket()
			if err != nil {
				return failure(err)
			}
			reply, err := daemon.Forget(c.Context, daemon.Config{Socket: socket, Database: db}, req)
			if err != nil {
				return failure(err)
			}
			if reply.Events == 0 {
				_, err = fmt.Fprintln(c.App.Writer, "no command matched: nothing forgotten")
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "forgot %d commands and what was learnt from them; the database keeps no trace of them\n", reply.Events)
			return err
		}),
	}
}

// readPattern reads the pattern from the first line of r, without its end.
func readPattern(r io.Reader) (string, error) {
	line, err := bufio.NewReaderSize(io.LimitReader(r, daemon.MaxPattern+2), daemon.MaxPattern+2).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("history forget: reading the pattern from stdin: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if len(line) > daemon.MaxPattern {
		return "", fmt.Errorf("history forget: the pattern on stdin is longer than %d bytes", daemon.MaxPattern)
	}
	return line, nil
}
