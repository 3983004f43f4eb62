package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
	"github.com/clai-sh/clai/runner/engine"
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
			if !c.Bool("headless") {
				if err := needTerminal(stdin, stdout); err != nil {
					return err
				}
				r.term = runner.OpenTerminal(stdin, stdout)
			}
			if r.term != nil {
				if h, w := r.term.Size(); h > 0 {
					r.rows, r.cols = h, w
				}
			} else if stdout != nil && term.IsTerminal(int(stdout.Fd())) {
				// Output only goes to a terminal: the program gets its size.
				if w, h, err := term.GetSize(int(stdout.Fd())); err == nil && w > 0 && h > 0 {
					r.rows, r.cols = uint16(min(h, 0xffff)), uint16(min(w, 0xffff))
				}
			}
			if r.term == nil && !c.Bool("quiet") {
				r.mirror = c.App.Writer
			}
			st, err := r.run(c.Context)
			if err != nil {
				return err
			}
			if r.midLine && (r.term != nil || r.mirror != nil && isTerminal(r.mirror)) {
				// The program's output stopped mid-line: clai's line starts a new one.
				_, _ = io.WriteString(c.App.Writer, "\r\n")
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
		return engine.ExitFailed
	}
	return code
}

// recording is one clai record session.
type recording struct {
	argv   []string
	out    string // the file; empty: a new clai-YYYYmmdd-HHMMSS.cast, set by run
	title  string
	term   *runner.Terminal // nil when headless
	mirror io.Writer        // headless: where output goes, or nil
	// rows and cols are the initial terminal size.
	rows, cols uint16
	// midLine is set, once run returned, when the program's output did not end
	// a line.
	midLine bool
	// incomplete is set, once run returned, to why the recording could not be
	// written in full.
	incomplete error
}

// run records the program into r.out and returns how the program ended; a
// recording that could not be written in full is not an error of run, but set
// in r.incomplete. The user's terminal is back in its mode when it returns, on
// every path.
func (r *recording) run(parent context.Context) (driver.ExitStatus, error) {
	// A closed terminal (SIGHUP) ends the program like SIGINT and SIGTERM do
	// (main handles those), so the recording is finished, not cut short;
	// unless clai runs with SIGHUP ignored (nohup), which Notify would undo.
	ctx, stop := parent, func() {}
	if !signal.Ignored(syscall.SIGHUP) {
		ctx, stop = signal.NotifyContext(parent, syscall.SIGHUP)
	}
	defer stop()

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
	started := false
	defer func() {
		if !started {
			_ = f.Close()
			if created {
				_ = os.Remove(r.out)
			}
		}
	}()
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
	var w castSink
	if created || !isRegular(f) {
		header.Timestamp = time.Now().Unix()
		cw, err := cast.NewWriter(f, header)
		if err != nil {
			return driver.ExitStatus{}, usageError("record: --out %s cannot be written: %v", r.out, err)
		}
		w = cw
	}

	var restore func()
	var resized <-chan struct{}
	if r.term != nil {
		// Raw before the program starts, so keys typed ahead are not echoed
		// by the terminal as well as by the program.
		if restore, err = r.term.Raw(); err != nil {
			return driver.ExitStatus{}, failure(fmt.Errorf("record: terminal: %w", err))
		}
		defer restore()
		resized = r.term.Resized(ctx)
	}

	start := time.Now()
	p, err := pty.Start(ctx, pty.Options{Argv: r.argv, Env: env, Rows: r.rows, Cols: r.cols})
	if err != nil {
		return driver.ExitStatus{}, failure(fmt.Errorf("record: %w", err))
	}
	defer p.Close()
	// From here on the file is kept, even if writing it fails part way; a
	// failure to write it is said once the program ended, and does not stop
	// the program.
	started = true
	if w == nil {
		w = r.replace(f, header, start)
	}
	r.incomplete = r.loop(ctx, p, w, start, resized)
	if cerr := w.Close(); r.incomplete == nil {
		r.incomplete = cerr
	}
	if cerr := f.Close(); r.incomplete == nil {
		r.incomplete = cerr
	}
	st, err := p.Wait()
	if err != nil {
		return st, failure(fmt.Errorf("record: %w", err))
	}
	return st, nil
}

// replace empties the file that was at the recording's path and writes the
// header to it, once the program started. If that fails, the recording is
// lost: what is returned then keeps the error for every later write.
func (r *recording) replace(f *os.File, header cast.Header, start time.Time) castSink {
	header.Timestamp = start.Unix()
	err := f.Truncate(0)
	if err == nil {
		var w *cast.Writer
		if w, err = cast.NewWriter(f, header); err == nil {
			return w
		}
	}
	return failedCast{err}
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

// castSink is where a recording's events go: a cast.Writer, or failedCast
// when the recording could not begin.
type castSink interface {
	Output(t time.Duration, data []byte) error
	Input(t time.Duration, data []byte) error
	Resize(t time.Duration, cols, rows int) error
	Flush() error
	Close() error
}

// failedCast is a recording that could not begin: every write returns why.
type failedCast struct{ err error }

func (f failedCast) Output(time.Duration, []byte) error   { return f.err }
func (f failedCast) Input(time.Duration, []byte) error    { return f.err }
func (f failedCast) Resize(time.Duration, int, int) error { return f.err }
func (f failedCast) Flush() error                         { return f.err }
func (f failedCast) Close() error                         { return f.err }

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

// loop copies the program's output to the recording and the screen, and the
// user's keys and size changes to the program and the recording, until the
// program's output ends. It returns the first error writing the recording;
// the program is not stopped for it.
func (r *recording) loop(ctx context.Context, p *pty.Process, w castSink, start time.Time, resized <-chan struct{}) error {
	rows, cols := r.rows, r.cols
	var mirror io.Writer = io.Discard
	if r.term != nil {
		mirror = r.term.Out
	} else if r.mirror != nil {
		mirror = r.mirror
	}
	var mu sync.Mutex
	var recErr error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if recErr == nil {
			recErr = err
		}
	}

	outputDone := make(chan struct{})
	go func() {
		defer close(outputDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := p.Read(buf)
			if n > 0 {
				if err := w.Output(time.Since(start), buf[:n]); err != nil {
					fail(err)
				}
				_, _ = mirror.Write(buf[:n])
				r.midLine = buf[n-1] != '\n'
			}
			if err != nil {
				return
			}
		}
	}()

	var input <-chan []byte
	if r.term != nil {
		input = r.term.Input(ctx)
	}
	// The recording reaches the disk now and then, so that little is lost if
	// clai is killed.
	flush := time.NewTicker(time.Second)
	defer flush.Stop()
	for {
		var err error
		select {
		case <-outputDone:
			mu.Lock()
			defer mu.Unlock()
			return recErr
		case in, ok := <-input:
			if !ok {
				input = nil
				continue
			}
			select {
			case <-p.Done():
				continue // keys typed once the program ended reach nobody
			default:
			}
			// Recorded before the program can echo them.
			err = w.Input(time.Since(start), in)
			_, _ = p.Write(in)
		case _, ok := <-resized:
			if !ok {
				resized = nil
				continue
			}
			if h, wd := r.term.Size(); h > 0 && (h != rows || wd != cols) {
				rows, cols = h, wd
				_ = p.Resize(rows, cols)
				err = w.Resize(time.Since(start), int(cols), int(rows))
			}
		case <-flush.C:
			err = w.Flush()
		}
		if err != nil {
			fail(err)
		}
	}
}
