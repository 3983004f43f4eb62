//go:build !clai_lean

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner/suggest/learned"
)

// suggestRulesCommand is clai suggest rules: rules proposed from the answers
// people repeated to a playbook's questions.
func suggestRulesCommand() *cli.Command {
	return &cli.Command{
		Name:      "rules",
		Usage:     suggestRulesUsage,
		ArgsUsage: "PLAYBOOK",
		Description: "Prints rules: and tests: to paste into the playbook, one rule for each question whose\n" +
			"most given answer people gave at least --min-count times and at least --min-share of\n" +
			"the time, each with its example and a test; then run clai lint. Questions a danger rule\n" +
			"matches, and a menu's entry where the playbook does not match the screen, are named in\n" +
			"comments, not proposed.\n" +
			"The answers are in $XDG_STATE_HOME/clai/learned.db (see docs/learned-answers.md).",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "min-count", Value: 2, Usage: "how often people must have given an answer"},
			&cli.Float64Flag{Name: "min-share", Value: 0.8, Usage: "the least share of a question's answers the answer must have, above 0 and at most 1"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError("suggest rules: name one playbook")
			}
			minCount, minShare := c.Int("min-count"), c.Float64("min-share")
			switch {
			case minCount < 1:
				return usageError("suggest rules: --min-count must be at least 1, not %d", minCount)
			case !(minShare > 0 && minShare <= 1):
				return usageError("suggest rules: --min-share must be above 0 and at most 1, not %v", minShare)
			}
			pb, err := files.Load(c.Args().First())
			if err != nil {
				return usage(fmt.Errorf("%w\nrun clai lint %s for hints", err, c.Args().First()))
			}
			repeated, err := repeatedAnswers(c, pb.Name, minCount)
			if err != nil {
				return failure(err)
			}
			var b strings.Builder
			learned.WriteYAML(&b, pb.Name, learned.Propose(pb, repeated, minShare))
			_, err = fmt.Fprint(c.App.Writer, b.String())
			return err
		}),
	}
}

// repeatedAnswers returns the answers people repeated to the questions of
// the playbook named name; none when nothing was learned yet.
func repeatedAnswers(c *cli.Context, name string, minCount int) ([]learned.Repeated, error) {
	store, err := openLearned(c.Context)
	if store == nil || err != nil {
		return nil, err
	}
	defer store.Close()
	return store.Repeated(c.Context, name, minCount)
}

// openLearned opens the learned answers of this user: nil, and no error,
// when nothing was learned yet.
func openLearned(ctx context.Context) (*learned.Store, error) {
	path, err := learned.DefaultPath(os.Getenv)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return learned.Open(ctx, path)
}

// suggestForgetCommand is clai suggest forget: what was learned goes.
func suggestForgetCommand() *cli.Command {
	return &cli.Command{
		Name:        "forget",
		Usage:       suggestForgetUsage,
		ArgsUsage:   "[PLAYBOOK-NAME]",
		Description: "Deletes the learned answers to the questions of the playbook of that name, or every\nlearned answer without one, and says how many.",
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageError("suggest forget: give at most one playbook name")
			}
			store, err := openLearned(c.Context)
			if err != nil {
				return failure(err)
			}
			var n int64
			if store != nil {
				defer store.Close()
				if n, err = store.Forget(c.Context, c.Args().First()); err != nil {
					return failure(err)
				}
			}
			_, err = fmt.Fprintf(c.App.Writer, "forgot %d learned answers\n", n)
			return err
		}),
	}
}
