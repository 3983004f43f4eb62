//go:build !clai_lean

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/internal/rundir"
	"github.com/clai-sh/clai/internal/statedir"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/secretfilter"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

func daemonCommand() *cli.Command {
	return &cli.Command{
		Name:  "daemon",
		Usage: daemonUsage,
		Description: "One daemon a user: it listens on $XDG_RUNTIME_DIR/clai/daemon.sock (else clai-UID in the temp folder,\n" +
			"or $" + hookproto.SocketEnv + ") and keeps what it learns in $XDG_STATE_HOME/clai/suggest.db\n" +
			"(else ~/.local/state/clai/suggest.db). It runs until stopped (Ctrl-C, SIGTERM; a hangup does not stop it). Start it with\n" +
			"`clai daemon &`, from a login script or a systemd user unit (see docs/suggest.md).\n" +
			"A command that holds a secret is not stored; history.secret_patterns in the user config file\n" +
			"adds patterns of your own (read at start).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "rebuild-aggregates", Usage: "recompute the transitions and scores from the command events kept, then serve"},
			&cli.StringFlag{Name: "retention", Value: "90d", Usage: "keep command events this long: days (90d) or a Go duration (720h)"},
			&cli.BoolFlag{Name: "make-database", Usage: "find a Makefile's targets with make -qp (runs the Makefile's $(shell …)) instead of reading the file"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("daemon: takes no arguments (see clai daemon --help)")
			}
			retention, err := parseRetention(c.String("retention"))
			if err != nil {
				return usage(err)
			}
			// The config file's history: its patterns of secrets, and
			// ignore, the stop-list.
			cfg, err := humanloop.LoadConfig(c.App.ErrWriter, os.Environ())
			if err != nil {
				return err
			}
			db, err := suggestDatabase()
			if err != nil {
				return failure(err)
			}
			var ignore []string
			if cfg.History != nil {
				ignore = cfg.History.Ignore
			}
			socket, err := daemonSocket()
			if err != nil {
				return failure(err)
			}
			// The daemon outlives the terminal it was started from: a
			// hangup does not stop it, Ctrl-C and SIGTERM do.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = daemon.Run(ctx, daemon.Config{
				Socket:            socket,
				Database:          db,
				Retention:         retention,
				RebuildAggregates: c.Bool("rebuild-aggregates"),
				Secrets:           secretFilter(cfg),
				Ignore:            ignore,
				Understander:      daemon.NewUnderstander(tasks.Options{MakeDatabase: c.Bool("make-database")}),
				Log:               c.App.ErrWriter,
			})
			if err != nil {
				return failure(err)
			}
			return nil
		},
	}
}

// secretFilter is the daemon's secret filter: the built-in rules and the
// user config file's history.secret_patterns.
func secretFilter(cfg *playbooks.Config) *secretfilter.Filter {
	if cfg.History == nil {
		return secretfilter.New()
	}
	return secretfilter.New(cfg.History.SecretPatterns...)
}

// daemonSocket is the path the daemon listens on: $CLAI_DAEMON_SOCKET, else
// daemon.sock in the runtime folder, which is made if missing and must be
// this user's alone.
func daemonSocket() (string, error) {
	if os.Getenv(hookproto.SocketEnv) == "" {
		if err := rundir.Prepare(rundir.Dir()); err != nil {
			return "", fmt.Errorf("daemon: %w", err)
		}
	}
	return hookproto.SocketPath(), nil
}

// suggestDatabase is the path of the daemon's database:
// $XDG_STATE_HOME/clai/suggest.db, else ~/.local/state/clai/suggest.db.
func suggestDatabase() (string, error) {
	dir, err := statedir.Dir(os.Getenv)
	if err != nil {
		return "", fmt.Errorf("daemon: %w for the database; set XDG_STATE_HOME", err)
	}
	return filepath.Join(dir, "suggest.db"), nil
}

// parseRetention reads --retention: a number of days ("90d") or a Go
// duration ("720h"), at least an hour.
func parseRetention(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("--retention %q: want days such as 90d, or a duration such as 720h", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("--retention %q: want days such as 90d, or a duration such as 720h", s)
		}
	}
	if d < time.Hour {
		return 0, errors.New("--retention: keep events an hour at least")
	}
	return d, nil
}
