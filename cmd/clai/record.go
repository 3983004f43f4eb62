package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
	"github.com/clai-sh/clai/runner/exitcode"
)

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "record a program's terminal session (asciicast v2)",
		ArgsUsage: "-- COMMAND [ARGS...]",
		Description: "Runs COMMAND in a pseudo-terminal and records its output, with timing, as an\n" +
			"asciicast v2 file, as asciinema writes and plays them.\n" +
			"In a terminal you use the program as usual: what you type reaches it and is\n" +
			"recorded too (passwords included: the file is created readable by you only),\n" +
			"and size changes follow. Without a terminal on stdin and stdout it refuses at\n" +
			"once (exit 2), unless --headless: then stdin is not read, so the program must ask\n" +
			"nothing, and the output is mirrored unless --quiet.\n" +
			"The file is checked, and its folder made, before the program starts (exit 2 if it\n" +
			"cannot be written); a recording cut short later (a full disk) is said on stderr.\n" +
			"Exits with the program's exit code (128+N if killed by signal N).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the recording to `FILE` (default: clai-YYYYmmdd-HHMMSS.cast)"},
			&cli.StringFlag{Name: "title", Aliases: []string{"t"}, Usage: "the recording's `TITLE`"},
			&cli.BoolFlag{Name: "headless", Usage: "record without a terminal: nothing reaches the program's input, for programs that ask nothing"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "headless: do not mirror the program's output"},
		},
		Action: func(c *cli.Context) error {
			argv := commandArgs(c.Args().Slice())
			if len(argv) == 0 || argv[0] == "" {
				return usageError("record: name the command to record: clai record [--out FILE.cast] -- COMMAND [ARGS...]")
			}
			stdin, _ := c.App.Reader.(*os.File)
			stdout, _ := c.App.Writer.(*os.File)
			r := &recording{
				argv:  argv,
				out:   c.String("out"),
				title: c.String("title"),
				rows:  pty.DefaultRows,
				cols:  pty.DefaultCols,
			}
			var opts []runner.Option
			if !c.Bool("headless") {
				if err := needTerminal(stdin, stdout); err != nil {
					return err
				}
				t := runner.OpenTerminal(stdin, stdout)
				if h, w := t.Size(); h > 0 {
					r.rows, r.cols = h, w
				}
				opts = append(opts, runner.WithTerminal(t))
			} else {
				if stdout != nil && term.IsTerminal(int(stdout.Fd())) {
					// Output only goes to a terminal: the program gets its size.
					if w, h, err := term.GetSize(int(stdout.Fd())); err == nil && w > 0 && h > 0 {
						r.rows, r.cols = uint16(min(h, 0xffff)), uint16(min(w, 0xffff))
					}
				}
				if !c.Bool("quiet") {
					opts = append(opts, runner.WithMirror(c.App.Writer))
				}
			}
			st, err := r.run(c.Context, opts)
			if err != nil {
				return err
			}
			if r.incomplete != nil {
				// Said, but the exit code stays the program's.
				fmt.Fprintf(c.App.ErrWriter, "clai: the recording %s is incomplete: %v\n", r.out, r.incomplete)
			} else {
				fmt.Fprintf(c.App.ErrWriter, "clai: recorded to %s\n", r.out)
			}
			if c.Context.Err() != nil {
				return interrupted(c)
			}
			if st.Code != 0 {
				return &exitError{code: programExitCode(st.Code)}
			}
			return nil
		},
	}
}

// needTerminal is the usage error of a recording without a terminal to type
// in: the program would wait for input that never comes.
func needTerminal(stdin, stdout *os.File) error {
	const how = "clai record passes what you type to the program; run it in a terminal, or give --headless to record a program that asks nothing"
	switch {
	case stdin == nil || !term.IsTerminal(int(stdin.Fd())):
		return usageError("record: stdin is not a terminal: %s", how)
	case stdout == nil || !term.IsTerminal(int(stdout.Fd())):
		return usageError("record: stdout is not a terminal: %s", how)
	}
	return nil
}

// programExitCode is the exit code clai passes on for a program's: its own,
// 0..255, or 128+N after signal N; anything else (it could not be waited
// for) is a failure.
func programExitCode(code int) int {
	if code < 0 || code > 255 {
		return exitcode.Failed
	}
	return code
}

// recording is one clai record session: the program, and the file it is
// recorded to.
type recording struct {
	argv  []string
	out   string // the file; empty: a new clai-YYYYmmdd-HHMMSS.cast, set by run
	title string
	// rows and cols are the initial terminal size.
	rows, cols uint16
	// incomplete is set, once run returned, to why the recording could not be
	// written in full.
	incomplete error
}

// run records the program into r.out through runner's session and returns how
// the program ended; a recording that could not be written in full is not an
// error of run, but set in r.incomplete.
func (r *recording) run(ctx context.Context, opts []runner.Option) (driver.ExitStatus, error) {
	env := os.Environ()
	termName := os.Getenv("TERM")
	if termName == "" {
		termName = "xterm-256color"
		env = append(env, "TERM="+termName)
	}
	headerEnv := map[string]string{"TERM": termName}
	if sh := os.Getenv("SHELL"); sh != "" {
		headerEnv["SHELL"] = sh
	}

	// The file first: a path that cannot be written fails before anything
	// runs. A file that was there is left as it was until the program started.
	f, created, err := r.create()
	if err != nil {
		return driver.ExitStatus{}, usageError("record: --out %s cannot be written: %v", r.displayOut(), err)
	}
	notStarted := func() {
		_ = f.Close()
		if created {
			_ = os.Remove(r.out)
		}
	}
	header := cast.Header{
		Width:   int(r.cols),
		Height:  int(r.rows),
		Command: strings.Join(r.argv, " "),
		Title:   r.title,
		Env:     headerEnv,
	}
	// The header goes first where writing it loses nothing (a new file, or
	// one that is not a regular file, as a device): a full disk is found
	// before the program starts. A regular file that was there is replaced
	// only once the program started.
	var w *cast.Writer
	if created || !isRegular(f) {
		header.Timestamp = time.Now().Unix()
		if w, err = cast.NewWriter(f, header); err != nil {
			notStarted()
			return driver.ExitStatus{}, usageError("record: --out %s cannot be written: %v", r.out, err)
		}
	}
	// From the start on the file is kept, even if writing it fails part way;
	// a failure to write it is said once the program ended, and does not stop
	// the program.
	started := false
	opts = append(opts, runner.WithRecordingOnStart(func(start time.Time) *cast.Writer {
		started = true
		if w == nil {
			w, r.incomplete = replace(f, header, start)
		}
		return w
	}))
	st, err := runner.Record(ctx, runner.Spawn{Argv: r.argv, Env: env, Rows: r.rows, Cols: r.cols}, opts...)
	if !started {
		notStarted()
		return st, failure(fmt.Errorf("record: %w", err))
	}
	if w != nil {
		if cerr := w.Close(); r.incomplete == nil {
			r.incomplete = cerr
		}
	}
	if cerr := f.Close(); r.incomplete == nil {
		r.incomplete = cerr
	}
	if err != nil {
		return st, failure(fmt.Errorf("record: %w", err))
	}
	return st, nil
}

// replace empties the file that was at the recording's path and writes the
// header to it, once the program started. If that fails, the recording is
// lost, and the error says why.
func replace(f *os.File, header cast.Header, start time.Time) (*cast.Writer, error) {
	header.Timestamp = start.Unix()
	if err := f.Truncate(0); err != nil {
		return nil, err
	}
	return cast.NewWriter(f, header)
}

// displayOut is the recording's path for a message: the one given, or the
// default's pattern.
func (r *recording) displayOut() string {
	if r.out == "" {
		return "clai-YYYYmmdd-HHMMSS.cast"
	}
	return r.out
}

// isRegular reports whether f is a regular file.
func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// create opens the recording's file, without truncating it, and reports
// whether it created it. A missing folder of --out FILE is made. --out FILE is replaced if it exists (run truncates it
// once the program started); the default name never replaces a file: a second
// recording within the same second gets "-2", "-3"… added.
func (r *recording) create() (f *os.File, created bool, err error) {
	// Keystrokes are recorded, passwords too: only the user may read it.
	const perm = 0o600
	if r.out != "" {
		if err := os.MkdirAll(filepath.Dir(r.out), 0o755); err != nil {
			return nil, false, err
		}
		f, err = os.OpenFile(r.out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(r.out, os.O_WRONLY, perm)
			return f, false, err
		}
		return f, err == nil, err
	}
	base := time.Now().Format("clai-20060102-150405")
	for i := 1; ; i++ {
		name := base + ".cast"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.cast", base, i)
		}
		f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if errors.Is(err, fs.ErrExist) && i < 1000 {
			continue
		}
		if err == nil {
			r.out = name
		}
		return f, err == nil, err
	}
}
