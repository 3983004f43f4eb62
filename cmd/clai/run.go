package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/internal/statedir"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/eventlog"
	"github.com/clai-sh/clai/runner/humanloop/core"
	"github.com/clai-sh/clai/runner/report"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "drive a program with a playbook",
		ArgsUsage: "PLAYBOOK [-- ARGS appended to the command]",
		Description: "Spawns the playbook's program in a pseudo-terminal, answers its prompts, refuses\n" +
			"dangerous ones and stops at its timeouts. In a terminal you see the program and can\n" +
			"type to it; Ctrl-C goes to the program and switches clai to MANUAL, twice ends the run.\n" +
			"Every output (--report, --log, --record) is checked before the program starts; one\n" +
			"that fails later is said on stderr and in the report, and leaves the exit code as is.\n" +
			"While it runs (after its first tenth of a second), clai sessions lists it and clai\n" +
			"answer answers its questions.\n" +
			"Exit codes: 0 done, 1 the program failed or could not start, 2 usage, invalid\n" +
			"playbook or an output that cannot be written, 3 a danger rule aborted, 4 ended in\n" +
			"MANUAL or at an unanswered prompt, 124 timeout, 130 interrupted.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "var", Usage: "set a playbook variable: `NAME=VALUE` (repeatable)"},
			&cli.BoolFlag{Name: "replace", Usage: "the arguments after -- are the whole command (program and arguments), instead of following the playbook's"},
			&cli.StringFlag{Name: "preset", Usage: "run a built-in playbook `NAME` instead of a file (clai presets list)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "send nothing automatically; record what would be sent"},
			&cli.StringFlag{Name: "record", Usage: "record the session as asciicast v2 to `FILE.cast` (answers marked, secrets masked), for --replay and asciinema"},
			&cli.StringFlag{Name: "replay", Usage: "feed a recorded session (asciicast v2) `FILE.cast` through the playbook in virtual time; nothing is spawned, nothing sent"},
			&cli.StringSliceFlag{Name: "report", Usage: "write a report of the run to `FILE`: .json, .md (for a pull request) or .html (one page with a timeline picture); repeatable, one file per format"},
			&cli.StringFlag{Name: "log", Usage: "write the event log (JSON lines) to `FILE` (default: under the user state directory)"},
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "headless: do not mirror the program's output"},
			&cli.BoolFlag{Name: "remote", Usage: "headless, wait up to timeouts.prompt for an answer from elsewhere (clai answer) at a hand-over, instead of ending at once"},
			&cli.BoolFlag{Name: "own-channels", Usage: "the run polls the config's channels itself instead of through the hub (docs/hub.md): for one run alone, where no hub may run"},
		},
		Action: func(c *cli.Context) error {
			vars, err := parseVars(c.StringSlice("var"))
			if err != nil {
				return err
			}
			pb, extra, err := loadRunPlaybook(c)
			if err != nil {
				return err
			}
			stdin, _ := c.App.Reader.(*os.File)
			stdout, _ := c.App.Writer.(*os.File)
			term := runner.OpenTerminal(stdin, stdout)
			// A replay reaches nobody: it reads no user config.
			var cfg *playbooks.Config
			if c.String("replay") == "" {
				if cfg, err = core.LoadConfig(os.Environ()); err != nil {
					return err
				}
				// The lean clai hands a run that needs more of the human
				// loop than it has to the full one, before it opens
				// anything (docs/performance.md#two-binaries).
				if err := handOver(c, pb, cfg, term != nil); err != nil {
					return err
				}
				core.WarnIfExposed(c.App.ErrWriter, cfg)
			}
			// Every output is checked before anything runs: a path that
			// cannot be written is a usage error, not a run without it.
			paths := outputPaths{reports: c.StringSlice("report"), log: c.String("log"), record: c.String("record")}
			if paths.record != "" && c.String("replay") != "" {
				return usageError("--record %s: a replay records nothing (the recording given to --replay is the session)", paths.record)
			}
			if err := paths.check(); err != nil {
				return err
			}
			logger, log, err := openLog(paths.log, c.String("log-level"), pb.Name)
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
				runner.WithTimeline(len(paths.reports) > 0),
				runner.WithRemote(c.Bool("remote")),
			}
			if file := c.String("replay"); file != "" {
				return replayRun(c, pb, file, opts, out, paths.reports)
			}
			if term != nil {
				opts = append(opts, runner.WithTerminal(term))
			} else if !c.Bool("quiet") {
				opts = append(opts, runner.WithMirror(c.App.Writer))
			}
			if paths.record != "" {
				rows, cols := 24, 80
				if term != nil {
					if r, c := term.Size(); r > 0 {
						rows, cols = int(r), int(c)
					}
				}
				rec, err := openRecording(paths.record, pb, rows, cols)
				if err != nil {
					return err
				}
				defer rec.close()
				out.record = rec
				opts = append(opts, runner.WithRecording(rec.Writer))
			}
			report, err := runLoop(c, pb, loopRun{
				cfg: cfg, logger: logger, headless: term == nil,
				command: append(slices.Clone(pb.Spawn.Command), extra...), runner: opts,
			})
			if err != nil {
				// The error carries its exit code: 2 for a run refused
				// for what it was given, 1 for anything else.
				var start *runner.StartError
				if !errors.As(err, &start) || report == nil {
					return err
				}
				// The program could not start: the report and the log say
				// why, as stderr does.
			}
			return finishRun(c, report, out, paths.reports, err)
		},
	}
}

// loopRun is what the run command hands runLoop besides its playbook.
type loopRun struct {
	// cfg is the user config.
	cfg *playbooks.Config
	// logger is the event log's.
	logger *zap.Logger
	// headless is a run with no terminal.
	headless bool
	// command is the program's command line as it runs.
	command []string
	// runner are the options of runner.Run the flags gave.
	runner []runner.Option
}

// loadRunPlaybook loads the playbook clai run was given, a file or a preset,
// and returns it with the arguments after -- applied to its command. A
// playbook that does not load is a usage error that says how to lint it.
func loadRunPlaybook(c *cli.Context) (*playbooks.Playbook, []string, error) {
	var pb *playbooks.Playbook
	var err error
	path, extra := c.Args().First(), commandArgs(c.Args().Tail())
	switch preset := c.String("preset"); {
	case preset != "":
		if pb, err = playbooks.LoadPreset(preset); err != nil {
			return nil, nil, usageError("--preset: %v", err)
		}
		extra = commandArgs(c.Args().Slice())
	case c.NArg() == 0:
		return nil, nil, usageError("run: name a playbook, or --preset NAME")
	default:
		pb, err = files.Load(path)
	}
	if err != nil {
		var list interface{ Count() (int, int) }
		if errors.As(err, &list) {
			return nil, nil, usage(fmt.Errorf("%w\nrun clai lint %s for hints", err, path))
		}
		return nil, nil, usage(err)
	}
	if extra, err = applyCommandArgs(pb, extra, c.Bool("replace")); err != nil {
		return nil, nil, err
	}
	return pb, extra, nil
}

// replayRun feeds the recording in file through pb in virtual time and
// writes the run's outputs; a recording that cannot be read is a usage
// error.
func replayRun(c *cli.Context, pb *playbooks.Playbook, file string, opts []runner.Option, out *outputs, reports []string) error {
	rec, err := cast.OpenReader(file)
	if err != nil {
		return usageError("--replay: %v", err)
	}
	defer rec.Close()
	report, err := runner.Replay(c.Context, pb, rec, opts...)
	var pe *cast.ParseError
	var tl *cast.TooLargeError
	if errors.As(err, &pe) || errors.As(err, &tl) {
		return usageError("--replay: %v", err)
	} else if err != nil {
		return err
	}
	return finishRun(c, report, out, reports, nil)
}

// finishRun closes the run's outputs, writes its reports and turns the run's
// outcome into the exit code. startErr is the error of a program that could
// not start, whose report says so. An output that could not be written is said
// on stderr and in the reports, and leaves the exit code as it was.
func finishRun(c *cli.Context, rep *report.Report, out *outputs, reports []string, startErr error) error {
	out.close(c.App.ErrWriter, rep)
	writeReports(c.App.ErrWriter, rep, reports)
	switch {
	case startErr != nil:
		return startErr
	case rep.ExitCode != 0:
		return &exitError{code: rep.ExitCode, err: fmt.Errorf("%s: %s", rep.Outcome, rep.Reason)}
	case rep.DecidedBy != "":
		// A success a person decided says so, as a failure would.
		fmt.Fprintf(c.App.ErrWriter, "clai: %s: %s\n", rep.Outcome, rep.Reason)
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
		return nil, nil, fmt.Errorf("the event log %s cannot be written: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("the event log %s cannot be written: %w", path, err)
	}
	log := &logFile{path: path, f: f}
	logger, stop := eventlog.New(log, lvl, name)
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
	dir, err := statedir.Dir(os.Getenv)
	if err != nil {
		return "", fmt.Errorf("log: %w; pass --log FILE", err)
	}
	return filepath.Join(dir, "logs"), nil
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
