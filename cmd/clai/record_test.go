package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	expect "github.com/Netflix/go-expect"
	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/cast"
)

// In a terminal, clai record passes keys through and records them, follows the
// terminal's size, and leaves the terminal as it found it.
func TestRecordTerminal(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	dir := t.TempDir()
	out := filepath.Join(dir, "session.cast")
	c, err := expect.NewConsole(expect.WithDefaultTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := unix.IoctlSetWinsize(int(c.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
		t.Fatal(err)
	}
	script := `printf "Name: "; read n; echo "hi $n"; while read l; do [ "$l" = q ] && exit 5; stty size; done`
	p := startOnConsole(t, c, bin, "record", "--out", out, "--title", "terminal", "--", "sh", "-c", script)

	if _, err := c.ExpectString("Name: "); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send("bob\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("hi bob"); err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(c.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 33, Col: 101}); err != nil {
		t.Fatal(err)
	}
	askUntil(t, c, "\r", expect.Regexp(regexp.MustCompile(`\d+ \d+\r?\n`)), "33 101")
	if _, err := c.Send("q\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("clai: recorded to " + out); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, p); code != 5 {
		t.Fatalf("exit %d, want the program's 5", code)
	}
	if !canonical(t, c) {
		t.Error("the terminal was left in raw mode")
	}

	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the recording is not private: %v %v", st.Mode(), err)
	}
	rec, err := cast.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	h := rec.Header
	if h.Width != 100 || h.Height != 30 || h.Title != "terminal" || h.Command != "sh -c "+script {
		t.Errorf("header %+v", h)
	}
	var in, output strings.Builder
	resized := false
	for _, e := range rec.Events {
		switch e.Kind {
		case cast.KindInput:
			in.WriteString(e.Data)
		case cast.KindOutput:
			output.WriteString(e.Data)
		case cast.KindResize:
			resized = resized || e.Data == "101x33"
		}
	}
	if !strings.HasPrefix(in.String(), "bob\r") || !strings.HasSuffix(in.String(), "q\r") {
		t.Errorf("input recorded: %q", in.String())
	}
	if !strings.Contains(output.String(), "Name: bob\r\nhi bob\r\n") || !strings.Contains(output.String(), "33 101\r\n") {
		t.Errorf("output recorded: %q", output.String())
	}
	if !resized {
		t.Errorf("no resize to 101x33 in %v", rec.Events)
	}
}

// With --headless, the output is recorded as it came, with times relative to the
// start, and stdin is not read.
func TestRecordHeadless(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "h.cast")
	var stdout, stderr bytes.Buffer
	code := runInProcess(context.Background(), []string{"clai", "record", "--headless", "--out", out, "--",
		"sh", "-c", `printf 'first\n'; sleep 0.6; printf '\033[1mbold\033[0m \342\235\257\n'; exit 7`},
		strings.NewReader("never read\n"), &stdout, &stderr)
	if code != 7 {
		t.Fatalf("exit %d, want 7\n%s", code, stderr.String())
	}
	want := "first\r\n\x1b[1mbold\x1b[0m ❯\r\n"
	if stdout.String() != want {
		t.Errorf("mirrored %q, want %q", stdout.String(), want)
	}
	if stderr.String() != "clai: recorded to "+out+"\n" {
		t.Errorf("stderr %q", stderr.String())
	}
	rec, err := cast.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if h := rec.Header; h.Width != 80 || h.Height != 24 || h.Env["TERM"] == "" || time.Since(time.Unix(h.Timestamp, 0)) > time.Minute {
		t.Errorf("header %+v", h)
	}
	var got strings.Builder
	for _, e := range rec.Events {
		if e.Kind != cast.KindOutput {
			t.Errorf("event %v: headless, only output is recorded", e)
		}
		got.WriteString(e.Data)
	}
	if got.String() != want {
		t.Errorf("recorded %q, want %q", got.String(), want)
	}
	// Half the pause shows it: on a loaded machine the first read may come
	// late, which shortens the pause as recorded.
	if n := len(rec.Events); n < 2 || rec.Events[n-1].Time-rec.Events[0].Time < 0.3 {
		t.Errorf("the pause is not in the timing: %v", rec.Events)
	}
}

// With stdin at a terminal but stdout elsewhere, the person could type but not
// see the program: clai record refuses at once, like it does without a terminal.
func TestRecordNeedsTerminalOut(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	out := filepath.Join(t.TempDir(), "none.cast")
	c, err := expect.NewConsole(expect.WithDefaultTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // only catches a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "record", "--out", out, "--", "sh", "-c", "read n")
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Tty(), &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("clai record with stdout not a terminal: %v, want exit 2\n%s", err, stderr.String())
	}
	if want := "clai: record: stdout is not a terminal: "; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q, want it to start with %q", stderr.String(), want)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a recording was created: %v", err)
	}
}

// In a terminal, "recorded to" starts on a line of its own when the program's
// output stopped mid-line.
func TestRecordMessageStartsOnAFreshLine(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	out := filepath.Join(t.TempDir(), "bye.cast")
	var screen bytes.Buffer
	c, err := expect.NewConsole(expect.WithDefaultTimeout(20*time.Second), expect.WithStdout(&screen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	p := startOnConsole(t, c, bin, "record", "--out", out, "--", "sh", "-c", `printf "bye"`)
	if _, err := c.ExpectString("recorded to " + out); err != nil {
		t.Fatalf("%v\n%q", err, screen.String())
	}
	if code := waitExit(t, p); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !regexp.MustCompile(`bye\r+\nclai: recorded to `).MatchString(screen.String()) {
		t.Errorf("the terminal shows %q: the message does not start on a line of its own", screen.String())
	}
}
