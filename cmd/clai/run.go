package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "drive a program with a playbook",
		ArgsUsage: "PLAYBOOK [-- ARGS for the command]",
		Description: "Spawns the playbook's program in a pseudo-terminal, answers its prompts, refuses\n" +
			"dangerous ones and stops at its timeouts. In a terminal you see the program and can\n" +
			"type to it; Ctrl-C goes to the program and switches clai to MANUAL, twice ends the run.\n" +
			"Exit codes: 0 done, 1 the program failed, 2 usage or invalid playbook, 3 a danger rule\n" +
			"aborted, 4 ended in MANUAL or at an unanswered prompt, 124 timeout, 130 interrupted.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "var", Usage: "set a playbook variable: `NAME=VALUE` (repeatable)"},
			&cli.StringFlag{Name: "preset", Usage: "run a built-in playbook `NAME` instead of a file (clai presets list)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "send nothing automatically; record what would be sent"},
			&cli.StringFlag{Name: "record", Usage: "record the session as asciicast v2 to `FILE.cast` (answers marked, secrets masked), for --replay and asciinema"},
			&cli.StringFlag{Name: "replay", Usage: "feed a recorded session (asciicast v2) `FILE.cast` through the playbook in virtual time; nothing is spawned, nothing sent"},
			&cli.StringFlag{Name: "report", Usage: "write a report of the run to `FILE`: .json, .md (for a pull request) or .html (one page with a timeline picture)"},
			&cli.StringFlag{Name: "log", Usage: "write the event log (JSON lines) to `FILE` (default: under the user state directory)"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "headless: do not mirror the program's output"},
		},
		Action: func(c *cli.Context) error {
			vars, err := parseVars(c.StringSlice("var"))
			if err != nil {
				return err
			}
			var pb *playbooks.Playbook
			path, extra := c.Args().First(), commandArgs(c.Args().Tail())
			switch preset := c.String("preset"); {
			case preset != "":
				// The arguments are the command: clai run --preset claude-code -- claude …
				if pb, err = playbooks.LoadPreset(preset); err != nil {
					return usageError("--preset: %v", err)
				}
				extra = commandArgs(c.Args().Slice())
				if len(extra) > 0 {
					pb.Spawn.Command = append([]string(nil), extra...)
					pb.Spawn.Shell = ""
					extra = nil
				}
			case c.NArg() == 0:
				return usageError("run: name a playbook, or --preset NAME")
			default:
				pb, err = playbooks.Load(path)
			}
			if err != nil {
				var list interface{ Count() (int, int) }
				if errors.As(err, &list) {
					return &exitError{code: exitUsage, err: fmt.Errorf("%w\nrun clai lint %s for hints", err, path)}
				}
				return &exitError{code: exitUsage, err: err}
			}
			if rep := c.String("report"); rep != "" {
				if _, err := runner.ReportFormat(rep); err != nil {
					return usageError("--report: %v", err)
				}
			}
			logger, closeLog, err := openLog(c.String("log"), c.String("log-level"), pb.Name)
			if err != nil {
				return usageError("%v", err)
			}
			defer closeLog()

			opts := []runner.Option{
				runner.WithLogger(logger),
				runner.WithVars(vars),
				runner.WithArgs(extra),
				runner.WithDryRun(c.Bool("dry-run")),
				runner.WithNotices(c.App.ErrWriter),
				// Without a report to write, the timeline would be recorded
				// for nothing (the log has every event).
				runner.WithTimeline(c.String("report") != ""),
			}
			if file := c.String("replay"); file != "" {
				rec, err := cast.OpenReader(file)
				if err != nil {
					return usageError("--replay: %v", err)
				}
				defer rec.Close()
				report, err := runner.ReplayReader(pb, rec, opts...)
				var pe *cast.ParseError
				if errors.As(err, &pe) {
					return usageError("--replay: %v", err)
				} else if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				return finishRun(c, report)
			}
			stdin, _ := c.App.Reader.(*os.File)
			stdout, _ := c.App.Writer.(*os.File)
			term := runner.OpenTerminal(stdin, stdout)
			if term != nil {
				opts = append(opts, runner.WithTerminal(term))
			} else if !c.Bool("quiet") {
				opts = append(opts, runner.WithMirror(c.App.Writer))
			}
			if file := c.String("record"); file != "" {
				rows, cols := 24, 80
				if sz := pb.Spawn.Size; sz != nil {
					rows, cols = sz.Rows, sz.Cols
				} else if term != nil {
					if r, c := term.Size(); r > 0 {
						rows, cols = int(r), int(c)
					}
				}
				f, err := os.Create(file)
				if err != nil {
					return usageError("--record: %v", err)
				}
				defer f.Close()
				w, err := cast.NewWriter(f, cast.Header{Width: cols, Height: rows, Timestamp: time.Now().Unix(), Title: pb.Name,
					Env: map[string]string{"TERM": "xterm-256color", "SHELL": os.Getenv("SHELL")}})
				if err != nil {
					return &exitError{code: exitFailed, err: fmt.Errorf("--record: %w", err)}
				}
				defer w.Close()
				opts = append(opts, runner.WithRecording(w))
			}
			report, err := runner.Run(c.Context, pb, opts...)
			if err != nil {
				var start *runner.StartError
				if errors.As(err, &start) {
					return &exitError{code: exitFailed, err: err}
				}
				return &exitError{code: exitUsage, err: err}
			}
			return finishRun(c, report)
		},
	}
}

// finishRun writes the report if asked and turns the run's outcome into the exit
// code.
func finishRun(c *cli.Context, report *runner.Report) error {
	if rep := c.String("report"); rep != "" {
		if err := report.WriteFile(rep); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	if report.ExitCode != 0 {
		return &exitError{code: report.ExitCode, err: fmt.Errorf("%s: %s", report.Outcome, report.Reason)}
	}
	return nil
}

// parseVars turns NAME=VALUE flags into a map.
func parseVars(flags []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, f := range flags {
		name, value, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, usageError("--var %q: write NAME=VALUE", f)
		}
		vars[name] = value
	}
	return vars, nil
}

// openLog opens the JSON-lines event log: path, or a new file under the user's state
// directory.
func openLog(path, level, name string) (*zap.Logger, func(), error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	if path == "" {
		dir, err := stateDir()
		if err != nil {
			return nil, nil, err
		}
		safe := strings.Map(func(r rune) rune {
			if r == '/' || r == os.PathSeparator || r == ' ' {
				return '-'
			}
			return r
		}, name)
		path = filepath.Join(dir, fmt.Sprintf("%s-%s-%d.jsonl", safe, time.Now().Format("20060102-150405"), os.Getpid()))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	logger, stop := runner.NewLogger(zapcore.AddSync(f), lvl, name)
	return logger, func() { _ = stop(); _ = f.Close() }, nil
}

// stateDir is where run logs go: $XDG_STATE_HOME/clai/logs or ~/.local/state/clai/logs.
func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "clai", "logs"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("log: no home directory; pass --log FILE: %w", err)
	}
	return filepath.Join(home, ".local", "state", "clai", "logs"), nil
}

// commandArgs returns the arguments for the spawned command: what follows the
// playbook, without the "--" that separates them from clai's own.
func commandArgs(tail []string) []string {
	if len(tail) > 0 && tail[0] == "--" {
		return tail[1:]
	}
	return tail
}
