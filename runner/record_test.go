package runner_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/terminaltest"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
)

// recordedAt is a recording of a program at a terminal a person drives.
type recordedAt struct {
	person *terminaltest.Person
	buf    syncBuffer
	w      *cast.Writer
	done   chan recordResult
}

type recordResult struct {
	st  driver.ExitStatus
	err error
}

// recordAtTerminal records argv, in a goroutine, at a terminal of 10x60 that
// the person the result holds drives.
func recordAtTerminal(t *testing.T, argv ...string) *recordedAt {
	t.Helper()
	person, term := newPersonAtTerminal(t)
	r := &recordedAt{person: person, done: make(chan recordResult, 1)}
	w, err := cast.NewWriter(&r.buf, cast.Header{Width: 60, Height: 10})
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // only catches a hang
	t.Cleanup(cancel)
	go func() {
		st, err := runner.Record(ctx, runner.Spawn{Argv: argv, Env: os.Environ(), Rows: 10, Cols: 60},
			runner.WithStarter(quickKill), runner.WithTerminal(term), runner.WithRecording(w))
		r.done <- recordResult{st, err}
	}()
	return r
}

// end waits for the program's end and returns how it ended and the
// recording's events, their data joined by kind.
func (r *recordedAt) end(t *testing.T) (driver.ExitStatus, map[string]string, []cast.Event) {
	t.Helper()
	res := <-r.done
	if res.err != nil {
		t.Fatalf("record: %v", res.err)
	}
	if err := r.w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := cast.Parse(strings.NewReader(r.buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	joined := map[string]string{}
	for _, e := range rec.Events {
		joined[e.Kind] += e.Data
	}
	return res.st, joined, rec.Events
}

// In a session a person drives, Ctrl-C is the program's alone: clai neither
// goes to MANUAL nor ends the run at the second one, and what was typed is
// recorded as typed. The recording has no marker: nothing of it is clai's.
func TestRecordCtrlCIsTheProgramsOwn(t *testing.T) {
	t.Parallel()
	// In raw mode Ctrl-C reaches the program as a byte.
	r := recordAtTerminal(t, "sh", "-c", `stty raw -echo; echo ready; head -c 3 | od -An -c; stty sane`)
	r.person.WaitFor("ready", 1)
	r.person.Types("\x03\x03q")
	st, joined, events := r.end(t)
	if st.Code != 0 {
		t.Errorf("the program ended %s, want exit 0", st)
	}
	if got := strings.Join(strings.Fields(joined[cast.KindOutput]), " "); !strings.Contains(got, `003 003 q`) {
		t.Errorf("the program did not get the two Ctrl-C and the q; it wrote %q", joined[cast.KindOutput])
	}
	if shown := r.person.Seen(); strings.Contains(shown, "clai:") {
		t.Errorf("clai spoke up in a session a person drives:\n%q", shown)
	}
	if got := joined[cast.KindInput]; got != "\x03\x03q" {
		t.Errorf("input recorded %q, want %q", got, "\x03\x03q")
	}
	for _, e := range events {
		if e.Kind == cast.KindMarker {
			t.Errorf("marker %q in a recording of a session a person drove", e.Data)
		}
	}
}

// A password typed at a prompt with echo off is recorded as typed, and what
// the program shows of it afterwards is shown and recorded as it is: in a
// session a person drives clai knows no secrets.
func TestRecordKeepsWhatIsTypedAsTyped(t *testing.T) {
	t.Parallel()
	r := recordAtTerminal(t, testprog.Build(t, "prompter"), "-q", "Password: ", "-secret", "1", "-q", "Name: ")
	r.person.WaitFor("Password: ", 1)
	r.person.Types("hunter2-is-long\r")
	r.person.WaitFor("Name: ", 1)
	r.person.Types("bob\r")
	st, joined, _ := r.end(t)
	if st.Code != 0 {
		t.Errorf("the program ended %s, want exit 0", st)
	}
	if got := joined[cast.KindInput]; got != "hunter2-is-long\rbob\r" {
		t.Errorf("input recorded %q, want the keys as typed", got)
	}
	if !strings.Contains(joined[cast.KindOutput], "got: hunter2-is-long") {
		t.Errorf("output recorded %q: the program's own words were changed", joined[cast.KindOutput])
	}
	if !strings.Contains(r.person.Seen(), "got: hunter2-is-long") {
		t.Errorf("the terminal shows %q: the program's own words were changed", r.person.Seen())
	}
}

// Cancelling a recording ends the program, and what it says as it ends is
// still shown and recorded; how it ended is its own.
func TestRecordKeepsTheLastWordsOnCancel(t *testing.T) {
	t.Parallel()
	var mirror syncBuffer
	var buf bytes.Buffer
	w, err := cast.NewWriter(&buf, cast.Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for deadline := time.Now().Add(20 * time.Second); !strings.Contains(mirror.String(), "ready"); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				break // the test fails below
			}
		}
		cancel()
	}()
	st, err := runner.Record(ctx, runner.Spawn{Argv: []string{"sh", "-c", `trap 'echo bye; exit 3' HUP TERM; echo ready; while :; do sleep 0.1; done`}, Env: os.Environ()},
		runner.WithMirror(&mirror), runner.WithRecording(w))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Code != 3 {
		t.Errorf("the program ended %s, want its own exit 3", st)
	}
	if !strings.Contains(mirror.String(), "bye") {
		t.Errorf("mirrored %q: the last words are missing", mirror.String())
	}
	if !strings.Contains(buf.String(), `bye\r\n`) {
		t.Errorf("recorded %q: the last words are missing", buf.String())
	}
}

// The recording reaches its file while the program runs, not only at its end,
// so that little is lost if clai is killed.
func TestRecordWritesOutAsItGoes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "live.cast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := cast.NewWriter(f, cast.Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	written := make(chan bool, 1)
	go func() {
		defer cancel()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("ready")) {
				written <- true
				return
			}
		}
		written <- false
	}()
	if _, err := runner.Record(ctx, runner.Spawn{Argv: []string{"sh", "-c", "echo ready; exec sleep 100"}, Env: os.Environ()},
		runner.WithStarter(quickKill), runner.WithRecording(w)); err != nil {
		t.Fatal(err)
	}
	if !<-written {
		t.Error("the output never reached the file while the program ran")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A program that cannot start is a *StartError, and the recording that would
// begin with it is never asked for.
func TestRecordProgramThatCannotStart(t *testing.T) {
	t.Parallel()
	begun := false
	_, err := runner.Record(t.Context(), runner.Spawn{Argv: []string{"no-such-program-for-clai"}, Env: os.Environ()},
		runner.WithRecordingOnStart(func(time.Time) *cast.Writer { begun = true; return nil }))
	var start *runner.StartError
	if !errors.As(err, &start) || !strings.Contains(err.Error(), "no-such-program-for-clai") {
		t.Fatalf("record: %v, want a *StartError naming the program", err)
	}
	if begun {
		t.Error("the recording began for a program that never started")
	}
}

// What the program wrote before it ended is recorded however late clai comes
// to read it (a busy machine), past the linger of its terminal too.
func TestRecordKeepsOutputReadLate(t *testing.T) {
	t.Parallel()
	start := func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
		p, err := pty.Start(ctx, pty.Options{Argv: s.Argv, Env: s.Env, Rows: s.Rows, Cols: s.Cols, Linger: time.Millisecond})
		if err != nil {
			return nil, err
		}
		return &lateReader{Process: p}, nil
	}
	var buf bytes.Buffer
	w, err := cast.NewWriter(&buf, cast.Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	st, err := runner.Record(t.Context(), runner.Spawn{Argv: []string{"sh", "-c", "echo last words; exit 7"}, Env: os.Environ()},
		runner.WithStarter(start), runner.WithRecording(w))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Code != 7 {
		t.Errorf("the program ended %s, want exit 7", st)
	}
	if !strings.Contains(buf.String(), "last words") {
		t.Errorf("recorded %q: the output read late is missing", buf.String())
	}
}

// lateReader is a program whose output is first read well after it ended and
// its terminal's linger is over.
type lateReader struct {
	*pty.Process
	once sync.Once
}

func (l *lateReader) late() {
	l.once.Do(func() {
		<-l.Done()
		time.Sleep(100 * time.Millisecond) // a hundred times the linger
	})
}

func (l *lateReader) Read(b []byte) (int, error) {
	l.late()
	return l.Process.Read(b)
}

func (l *lateReader) ReadWait(b []byte) (int, error) {
	l.late()
	return l.Process.ReadWait(b)
}
