package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
		ArgsUsage: "PLAYBOOK [-- ARGS appended to the command]",
		Description: "Spawns the playbook's program in a pseudo-terminal, answers its prompts, refuses\n" +
			"dangerous ones and stops at its timeouts. In a terminal you see the program and can\n" +
			"type to it; Ctrl-C goes to the program and switches clai to MANUAL, twice ends the run.\n" +
			"Exit codes: 0 done, 1 the program failed or could not start (or the log or recording\n" +
			"could not be written), 2 usage or invalid playbook, 3 a danger rule\n" +
			"aborted, 4 ended in MANUAL or at an unanswered prompt, 124 timeout, 130 interrupted.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "var", Usage: "set a playbook variable: `NAME=VALUE` (repeatable)"},
			&cli.BoolFlag{Name: "replace", Usage: "the arguments after -- are the whole command (program and arguments), instead of following the playbook's"},
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
				if pb, err = playbooks.LoadPreset(preset); err != nil {
					return usageError("--preset: %v", err)
				}
				extra = commandArgs(c.Args().Slice())
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
			if extra, err = applyCommandArgs(pb, extra, c.Bool("replace")); err != nil {
				return err
			}
			if rep := c.String("report"); rep != "" {
				if _, err := runner.ReportFormat(rep); err != nil {
					return usageError("--report: %v", err)
				}
			}
			logger, log, err := openLog(c.String("log"), c.String("log-level"), pb.Name)
			if err != nil {
				return usageError("%v", err)
			}
			defer log.close()
			out := &outputs{log: log}

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
				report, err := runner.ReplayReader(c.Context, pb, rec, opts...)
				var pe *cast.ParseError
				if errors.As(err, &pe) {
					return usageError("--replay: %v", err)
				} else if err != nil {
					return runError(err)
				}
				return finishRun(c, report, out, nil)
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
				out.record, out.recordPath = w, file
				opts = append(opts, runner.WithRecording(w))
			}
			report, err := runner.Run(c.Context, pb, opts...)
			if err != nil {
				var start *runner.StartError
				if !errors.As(err, &start) || report == nil {
					return runError(err)
				}
				// The program could not start: the report and the log say
				// why, as stderr does.
			}
			return finishRun(c, report, out, err)
		},
	}
}

// runError is the exit of a run that returned err instead of a report: a run
// refused for what it was given (it cannot run as written, an undeclared
// --var, a missing secret) is a usage error, exit 2; anything else, a program
// that could not start or an error nobody planned for, is a failure, exit 1.
func runError(err error) error {
	var setup *runner.SetupError
	if errors.As(err, &setup) {
		return &exitError{code: exitUsage, err: err}
	}
	return &exitError{code: exitFailed, err: err}
}

// finishRun closes the run's outputs, writes the report if asked and turns the
// run's outcome into the exit code. startErr is the error of a program that
// could not start, whose report says so.
func finishRun(c *cli.Context, report *runner.Report, out *outputs, startErr error) error {
	runCode := report.ExitCode
	out.close(c.App.ErrWriter, report)
	if rep := c.String("report"); rep != "" {
		if err := report.WriteFile(rep); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	switch {
	case startErr != nil:
		return &exitError{code: exitFailed, err: startErr}
	case runCode == 0 && report.ExitCode != 0:
		// The run itself succeeded; out.close said what was not written.
		return &exitError{code: report.ExitCode}
	case report.ExitCode != 0:
		return &exitError{code: report.ExitCode, err: fmt.Errorf("%s: %s", report.Outcome, report.Reason)}
	}
	return nil
}

// outputs are the files a run writes as it goes, beside its report: the event
// log and the recording.
type outputs struct {
	log        *logFile
	record     *cast.Writer
	recordPath string
}

// close flushes and closes the outputs. One that could not be written in full
// is said on stderr, once, and noted in the report (which makes a run that
// succeeded exit 1).
func (o *outputs) close(stderr io.Writer, report *runner.Report) {
	if err := o.log.close(); err != nil {
		fmt.Fprintf(stderr, "clai: the event log %s is incomplete: %v\n", o.log.path, err)
		report.AddOutputError("log", o.log.path, err)
	}
	if o.record != nil {
		if err := o.record.Close(); err != nil {
			fmt.Fprintf(stderr, "clai: the recording %s is incomplete: %v\n", o.recordPath, err)
			report.AddOutputError("recording", o.recordPath, err)
		}
	}
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
func openLog(path, level, name string) (*zap.Logger, *logFile, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	if path == "" {
		dir, err := stateDir()
		if err != nil {
			return nil, nil, err
		}
		path = logPath(dir, name, time.Now(), os.Getpid())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	log := &logFile{path: path, f: f}
	logger, stop := runner.NewLogger(log, lvl, name)
	log.stop = stop
	// A failed write is said once, when the run is over (see outputs.close),
	// not by the logger at every line it cannot write.
	logger = logger.WithOptions(zap.ErrorOutput(zapcore.AddSync(io.Discard)))
	return logger, log, nil
}

// logFile is the file of the event log. It keeps the first error of a write:
// the logger buffers its lines and writes them from a goroutine of its own,
// which has nobody to tell.
type logFile struct {
	path string
	f    *os.File
	stop func() error

	mu     sync.Mutex
	err    error
	closed bool
}

func (l *logFile) Write(p []byte) (int, error) {
	n, err := l.f.Write(p)
	if err != nil {
		l.mu.Lock()
		if l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}
	return n, err
}

func (l *logFile) Sync() error { return l.f.Sync() }

// close writes what the logger holds and closes the file; it returns the first
// error of a write or of closing, which means the log is incomplete. Only the
// first call does anything.
func (l *logFile) close() error {
	l.mu.Lock()
	closed := l.closed
	l.closed = true
	l.mu.Unlock()
	if closed {
		return nil
	}
	_ = l.stop() // a failed write is kept by Write
	cerr := l.f.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	return cerr
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

// applyCommandArgs applies the arguments given after -- to the playbook's
// spawn, the same way for a playbook and a preset: they follow its command (a
// shell line gets them as $1, $2 …), or, with replace, they are the command.
// It returns the arguments left to append.
func applyCommandArgs(pb *playbooks.Playbook, extra []string, replace bool) ([]string, error) {
	switch {
	case len(extra) == 0:
		if replace {
			return nil, usageError("--replace: give the command after --, e.g. clai run --replace PLAYBOOK -- PROGRAM ARGS…")
		}
		return nil, nil
	case pb.Spawn.Tmux != nil && pb.Spawn.Tmux.Target != "":
		return nil, usageError("the arguments after -- have no command to go to: the playbook drives the tmux pane %q, which runs its own program", pb.Spawn.Tmux.Target)
	case replace:
		pb.Spawn.ReplaceCommand(extra)
		return nil, nil
	}
	return extra, nil
}

// commandArgs returns the arguments for the spawned command: what follows the
// playbook, without the "--" that separates them from clai's own.
func commandArgs(tail []string) []string {
	if len(tail) > 0 && tail[0] == "--" {
		return tail[1:]
	}
	return tail
}
