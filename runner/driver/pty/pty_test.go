package pty_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
)

// timeout bounds every wait; happy paths take milliseconds, but -race on a
// loaded CI machine is slow.
const timeout = 30 * time.Second

// console reads a Process's output in the background so a test can wait for
// markers in it, the way an expect script does.
type console struct {
	t    testing.TB
	p    *pty.Process
	read func([]byte) (int, error) // p.Read or p.ReadWait
	more chan struct{}             // a token after each Read
	done chan struct{}             // closed when the reader got io.EOF or an error

	mu  sync.Mutex
	out []byte
	pos int // expect consumed the output up to here
	err error
}

func start(t testing.TB, opts pty.Options) *console {
	t.Helper()
	return startReading(t, opts, readWays[0])
}

// readWay is one of the two ways to wait for output: Read, which waits in
// ppoll and can be bounded in time, and ReadWait, a blocking read.
type readWay struct {
	name string
	read func(*pty.Process) func([]byte) (int, error)
}

var readWays = []readWay{
	{"Read", func(p *pty.Process) func([]byte) (int, error) { return p.Read }},
	{"ReadWait", func(p *pty.Process) func([]byte) (int, error) { return p.ReadWait }},
}

// startReading starts a program and reads its output the given way.
func startReading(t testing.TB, opts pty.Options, way readWay) *console {
	t.Helper()
	p, err := pty.Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return attachReading(t, p, way)
}

func attach(t testing.TB, p *pty.Process) *console {
	return attachReading(t, p, readWays[0])
}

func attachReading(t testing.TB, p *pty.Process, way readWay) *console {
	c := &console{t: t, p: p, read: way.read(p), more: make(chan struct{}, 1), done: make(chan struct{})}
	go c.pump()
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		<-c.done
	})
	return c
}

func (c *console) pump() {
	defer close(c.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := c.read(buf)
		c.mu.Lock()
		c.out = append(c.out, buf[:n]...)
		if err != nil && !errors.Is(err, io.EOF) {
			c.err = err
		}
		c.mu.Unlock()
		select {
		case c.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// expect waits for s in the output not consumed yet, consumes the output up
// to the end of s and returns what came before s.
func (c *console) expect(s string) string {
	c.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		if i := bytes.Index(c.out[c.pos:], []byte(s)); i >= 0 {
			before := string(c.out[c.pos : c.pos+i])
			c.pos += i + len(s)
			c.mu.Unlock()
			return before
		}
		c.mu.Unlock()
		select {
		case <-c.more:
		case <-c.done:
			c.mu.Lock()
			found := bytes.Contains(c.out[c.pos:], []byte(s))
			c.mu.Unlock()
			if !found {
				c.t.Fatalf("output ended (err %v) before %q; unconsumed output: %q", c.err, s, c.unconsumed())
			}
		case <-deadline.C:
			c.t.Fatalf("no %q after %v; unconsumed output: %q", s, timeout, c.unconsumed())
		}
	}
}

// rest waits for the end of the output (Read returned io.EOF) and returns
// what expect did not consume.
func (c *console) rest() string {
	c.t.Helper()
	select {
	case <-c.done:
	case <-time.After(timeout):
		c.t.Fatalf("output did not end after %v; unconsumed output: %q", timeout, c.unconsumed())
	}
	if c.err != nil {
		c.t.Fatalf("Read: %v", c.err)
	}
	return c.unconsumed()
}

func (c *console) unconsumed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := string(c.out[c.pos:])
	c.pos = len(c.out)
	return s
}

func (c *console) send(s string) {
	c.t.Helper()
	if _, err := c.p.Write([]byte(s)); err != nil {
		c.t.Fatalf("Write %q: %v", s, err)
	}
}

func (c *console) wait() driver.ExitStatus {
	c.t.Helper()
	return wait(c.t, c.p)
}

func wait(t testing.TB, p *pty.Process) driver.ExitStatus {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(timeout):
		t.Fatalf("program still running after %v", timeout)
	}
	st, err := p.Wait()
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return st
}

// gone reports whether pid no longer runs: it does not exist, or it is a
// zombie nobody reaped yet (a grandchild whose new parent, PID 1 of a
// container, may never reap it).
func gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] == 'Z'
}

func waitGone(t testing.TB, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for _, pid := range pids {
		for !gone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still exists %v after Close", pid, timeout)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func TestPrompterRoundTrip(t *testing.T) {
	t.Parallel()
	for _, way := range readWays {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			testPrompterRoundTrip(t, way)
		})
	}
}

func testPrompterRoundTrip(t *testing.T, way readWay) {
	c := startReading(t, pty.Options{Argv: []string{testprog.Build(t, "prompter"),
		"-q", "Project name: ", "-q", "Continue? [y/n] "}}, way)
	c.expect("Project name: ")
	c.send("demo\r")
	c.expect("got: demo")
	c.expect("Continue? [y/n] ")
	c.send("y\r")
	c.expect("got: y")
	if st := c.wait(); st != (driver.ExitStatus{}) {
		t.Errorf("exit status = %v, want exit 0", st)
	}
	if rest := c.rest(); strings.TrimSpace(rest) != "" {
		t.Errorf("output after the last answer: %q", rest)
	}
}

func TestSecretPromptIsNotEchoed(t *testing.T) {
	t.Parallel()
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "prompter"),
		"-q", "User: ", "-q", "Password: ", "-secret", "2"}})
	c.expect("User: ")
	if on, err := c.p.Echo(); err != nil || !on {
		t.Errorf("Echo() at an ordinary prompt = %v, %v; want true", on, err)
	}
	if on, err := c.p.LineMode(); err != nil || !on {
		t.Errorf("LineMode() at an ordinary prompt = %v, %v; want true", on, err)
	}
	c.send("alice\r")
	if echoed := c.expect("got: alice"); !strings.Contains(echoed, "alice") {
		t.Errorf("ordinary answer not echoed: %q", echoed)
	}
	c.expect("Password: ")
	if on, err := c.p.Echo(); err != nil || on {
		t.Errorf("Echo() at a password prompt = %v, %v; want false", on, err)
	}
	if on, err := c.p.LineMode(); err != nil || on {
		t.Errorf("LineMode() with the terminal in raw mode = %v, %v; want false", on, err)
	}
	c.send("hunter2\r")
	if echoed := c.expect("got: hunter2"); strings.Contains(echoed, "hunter2") {
		t.Errorf("secret answer echoed: %q", echoed)
	}
	if st := c.wait(); st.Code != 0 {
		t.Errorf("exit status = %v, want exit 0", st)
	}
}

func TestSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rows, cols uint16
		want       string
	}{
		{0, 0, "24 80"},
		{40, 120, "40 120"},
		{1, 1000, "1 1000"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			c := start(t, pty.Options{Argv: []string{testprog.Build(t, "echo")}, Rows: tc.rows, Cols: tc.cols})
			c.expect("> ")
			c.send("size\r")
			c.expect("size")      // the echo of what was typed
			got := c.expect("> ") // the answer, up to the next prompt
			if strings.TrimSpace(got) != tc.want {
				t.Errorf("size = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResize(t *testing.T) {
	t.Parallel()
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "echo")}})
	c.expect("> ")
	for _, sz := range [][2]uint16{{30, 100}, {50, 200}, {24, 80}} {
		if err := c.p.Resize(sz[0], sz[1]); err != nil {
			t.Fatalf("Resize: %v", err)
		}
		c.send("size\r")
		c.expect("size")
		want := fmt.Sprintf("%d %d", sz[0], sz[1])
		if got := c.expect("> "); strings.TrimSpace(got) != want {
			t.Errorf("after Resize(%d, %d) size = %q, want %q", sz[0], sz[1], got, want)
		}
	}
	c.send("quit\r")
	c.expect("bye")
	c.wait()
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.p.Resize(10, 10); !errors.Is(err, driver.ErrEnded) {
		t.Errorf("Resize after Close = %v, want ErrEnded", err)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	t.Run("declined", func(t *testing.T) {
		t.Parallel()
		c := start(t, pty.Options{Argv: []string{testprog.Build(t, "danger")}})
		c.expect("About to run: rm -rf /")
		c.expect("Proceed? [y/N] ")
		c.send("n\r")
		c.expect("aborted")
		if st := c.wait(); st != (driver.ExitStatus{Code: 0}) {
			t.Errorf("exit status = %v, want exit 0", st)
		}
	})
	t.Run("approved", func(t *testing.T) {
		t.Parallel()
		c := start(t, pty.Options{Argv: []string{testprog.Build(t, "danger")}})
		c.expect("Proceed? [y/N] ")
		c.send("y\r")
		c.expect("running")
		if st := c.wait(); st != (driver.ExitStatus{Code: 1}) {
			t.Errorf("exit status = %v, want exit 1", st)
		}
	})
	t.Run("killed", func(t *testing.T) {
		t.Parallel()
		c := start(t, pty.Options{Argv: []string{testprog.Build(t, "silent")}})
		c.expect("ready")
		if err := syscall.Kill(c.p.Pid(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		want := driver.ExitStatus{Code: 128 + 9, Signal: "killed"}
		if st := c.wait(); st != want {
			t.Errorf("exit status = %v, want %v", st, want)
		}
		c.rest()
	})
	t.Run("ctrl-c", func(t *testing.T) {
		t.Parallel()
		// The terminal turns Ctrl-C into SIGINT for the program: proof
		// that it is the program's controlling terminal.
		c := start(t, pty.Options{Argv: []string{testprog.Build(t, "silent")}})
		c.expect("ready")
		c.send("\x03")
		want := driver.ExitStatus{Code: 128 + 2, Signal: "interrupt"}
		if st := c.wait(); st != want {
			t.Errorf("exit status = %v, want %v", st, want)
		}
	})
	t.Run("exits by itself", func(t *testing.T) {
		t.Parallel()
		c := start(t, pty.Options{Argv: []string{testprog.Build(t, "silent"), "-for", "1ms"}})
		c.expect("ready")
		if st := c.wait(); st != (driver.ExitStatus{}) {
			t.Errorf("exit status = %v, want exit 0", st)
		}
	})
}

func TestWaitTwice(t *testing.T) {
	t.Parallel()
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "danger")}})
	c.expect("Proceed? [y/N] ")
	c.send("y\r")
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if st, err := c.p.Wait(); err != nil || st.Code != 1 {
				t.Errorf("Wait = %v, %v; want exit 1", st, err)
			}
		})
	}
	wg.Wait()
	if st, err := c.p.Wait(); err != nil || st.Code != 1 {
		t.Errorf("Wait again = %v, %v; want exit 1", st, err)
	}
}

func TestCloseKillsStubbornAfterGrace(t *testing.T) {
	t.Parallel()
	const grace = 300 * time.Millisecond
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "stubborn")}, Grace: grace})
	c.expect("ready")
	began := time.Now()
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if took := time.Since(began); took < grace {
		t.Errorf("Close took %v, less than the grace period %v", took, grace)
	}
	want := driver.ExitStatus{Code: 128 + 9, Signal: "killed"}
	if st := c.wait(); st != want {
		t.Errorf("exit status = %v, want %v", st, want)
	}
	waitGone(t, c.p.Pid())
	c.rest()
}

func TestCloseIsIdempotent(t *testing.T) {
	t.Parallel()
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "silent")}})
	c.expect("ready")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := c.p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	if err := c.p.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
	if st := c.wait(); !st.Signaled() {
		t.Errorf("exit status = %v, want ended by a signal", st)
	}
	c.rest() // the pending Read returned io.EOF
	if _, err := c.p.Write([]byte("x")); !errors.Is(err, driver.ErrEnded) {
		t.Errorf("Write after Close = %v, want ErrEnded", err)
	}
	if n, err := c.p.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("Read after Close = %d, %v; want 0, io.EOF", n, err)
	}
}

// readyPIDs waits for forker's "ready parent=N child=M" line.
func readyPIDs(t *testing.T, c *console) (parent, child int) {
	t.Helper()
	c.expect("ready parent=")
	line := c.expect("\n")
	if _, err := fmt.Sscanf(strings.TrimSpace(line), "%d child=%d", &parent, &child); err != nil {
		t.Fatalf("forker's ready line %q: %v", line, err)
	}
	if parent != c.p.Pid() {
		t.Fatalf("forker says its PID is %d, Pid() = %d", parent, c.p.Pid())
	}
	return parent, child
}

func TestCloseKillsGrandchild(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, flag string }{
		{"same group", "-own-group=false"},
		{"own group", "-own-group"}, // only the session holds it
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := start(t, pty.Options{Argv: []string{testprog.Build(t, "forker"), tc.flag}})
			parent, child := readyPIDs(t, c)
			if gone(child) {
				t.Fatalf("grandchild %d is not running before Close", child)
			}
			if err := c.p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			waitGone(t, parent, child)
			if st := c.wait(); !st.Signaled() {
				t.Errorf("exit status = %v, want ended by a signal", st)
			}
			c.rest()
		})
	}
}

func TestReadEndsWhenGrandchildHoldsTerminal(t *testing.T) {
	t.Parallel()
	for _, way := range readWays {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			testReadEndsWhenGrandchildHoldsTerminal(t, way)
		})
	}
}

func testReadEndsWhenGrandchildHoldsTerminal(t *testing.T, way readWay) {
	c := startReading(t, pty.Options{Argv: []string{testprog.Build(t, "forker"), "-exit"}, Linger: 100 * time.Millisecond}, way)
	_, child := readyPIDs(t, c)
	if st := c.wait(); st != (driver.ExitStatus{}) {
		t.Errorf("exit status = %v, want exit 0", st)
	}
	c.rest() // io.EOF although the grandchild still holds the terminal
	if gone(child) {
		t.Fatalf("grandchild %d ended before Close; the test proves nothing", child)
	}
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitGone(t, child)
}

func TestContextCancelEndsProgram(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"silent", "forker", "stubborn"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p, err := pty.Start(ctx, pty.Options{Argv: []string{testprog.Build(t, name)}, Grace: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			c := attach(t, p)
			c.expect("ready")
			cancel()
			if st := c.wait(); !st.Signaled() || st.Code <= 128 {
				t.Errorf("exit status = %v, want ended by a signal", st)
			}
			c.rest() // the whole group is gone, so the terminal closed
			waitGone(t, p.Pid())
		})
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	silent := testprog.Build(t, "silent")
	notExec := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		opts pty.Options
		is   error
		msg  string
	}{
		{"not found", t.Context(), pty.Options{Argv: []string{"clai-no-such-program"}}, exec.ErrNotFound,
			`start "clai-no-such-program": executable file not found in $PATH`},
		{"not found in env PATH", t.Context(), pty.Options{Argv: []string{"sh"}, Env: []string{"PATH=" + t.TempDir()}},
			exec.ErrNotFound, `start "sh": executable file not found`},
		{"missing path", t.Context(), pty.Options{Argv: []string{"/nonexistent/clai"}}, os.ErrNotExist,
			`start "/nonexistent/clai"`},
		{"not executable", t.Context(), pty.Options{Argv: []string{notExec}}, os.ErrPermission,
			fmt.Sprintf("start %q", notExec)},
		{"missing dir", t.Context(), pty.Options{Argv: []string{silent}, Dir: "/nonexistent"}, os.ErrNotExist,
			"/nonexistent"},
		{"empty argv", t.Context(), pty.Options{}, nil, "start: empty command"},
		{"cancelled", cancelled, pty.Options{Argv: []string{silent}}, context.Canceled, "start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := pty.Start(tc.ctx, tc.opts)
			if err == nil {
				_ = p.Close()
				t.Fatal("Start succeeded")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

func TestPathAndDirFromOptions(t *testing.T) {
	t.Parallel()
	bin := testprog.Build(t, "echo")
	dir := t.TempDir()
	// Argv[0] "echo" must be the fake, found through Env's PATH, not /bin/echo.
	c := start(t, pty.Options{
		Argv: []string{"echo"},
		Env:  []string{"PATH=/nonexistent:" + filepath.Dir(bin), "HOME=" + dir},
		Dir:  dir,
	})
	c.expect("> ")
	c.send("hi\r")
	c.expect("HI")
	c.send("quit\r")
	c.expect("bye")
	c.wait()
}

func TestReadDrainsAfterExit(t *testing.T) {
	t.Parallel()
	p, err := pty.Start(t.Context(), pty.Options{Argv: []string{testprog.Build(t, "echo")}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Type ahead, let the program answer and exit, and only then read.
	if _, err := p.Write([]byte("hello\rquit\r")); err != nil {
		t.Fatal(err)
	}
	if st := wait(t, p); st.Code != 0 {
		t.Fatalf("exit status = %v", st)
	}
	out, err := io.ReadAll(p)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	for _, want := range []string{"HELLO", "bye"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output after exit lacks %q: %q", want, out)
		}
	}
	for range 2 {
		if n, err := p.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("Read after the end = %d, %v; want 0, io.EOF", n, err)
		}
	}
	if _, err := p.Write([]byte("x\r")); !errors.Is(err, driver.ErrEnded) {
		t.Errorf("Write after exit = %v, want ErrEnded", err)
	}
}

func TestFloodArrivesWhole(t *testing.T) {
	t.Parallel()
	for _, way := range readWays {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			testFloodArrivesWhole(t, way)
		})
	}
}

func testFloodArrivesWhole(t *testing.T, way readWay) {
	const size = 4 << 20
	c := startReading(t, pty.Options{Argv: []string{testprog.Build(t, "flood"),
		"-bytes", strconv.Itoa(size), "-inject", "About to run: rm -rf /"}}, way)
	log := c.expect("Continue? [y/n] ")
	c.send("y\r")
	c.expect("answer: y")
	if st := c.wait(); st.Code != 0 {
		t.Errorf("exit status = %v", st)
	}
	c.rest()
	// The terminal turns "\n" into "\r\n"; everything else arrives as sent.
	log = strings.ReplaceAll(log, "\r\n", "\n")
	const injected = "About to run: rm -rf /\n"
	if !strings.Contains(log, injected) {
		t.Error("the injected line is missing")
	}
	if got := len(log) - len(injected); got != size {
		t.Errorf("got %d bytes of log, want %d", got, size)
	}
}

func TestBinaryOutput(t *testing.T) {
	t.Parallel()
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "binary"), "-repeat", "50"}})
	garbage := c.expect("Name: ")
	if !strings.Contains(garbage, "\xff\xfe\xfd") || !strings.Contains(garbage, "\x1b[12;") {
		t.Errorf("garbage not passed through unchanged: %q", garbage[:min(len(garbage), 200)])
	}
	c.send("zoë\r")
	c.expect("hello zoë")
	if st := c.wait(); st.Code != 0 {
		t.Errorf("exit status = %v", st)
	}
}

func TestManyAtOnce(t *testing.T) {
	t.Parallel()
	bin := testprog.Build(t, "roundtrip")
	const procs, rounds = 8, 20
	var wg sync.WaitGroup
	for range procs {
		wg.Go(func() {
			p, err := pty.Start(t.Context(), pty.Options{Argv: []string{bin, "-n", strconv.Itoa(rounds)}})
			if err != nil {
				t.Error(err)
				return
			}
			defer p.Close()
			var out []byte
			buf := make([]byte, 4096)
			for i := 1; i <= rounds; i++ {
				var code int
				for {
					n, err := p.Read(buf)
					out = append(out, buf[:n]...)
					if err != nil {
						t.Errorf("round %d: Read: %v; output %q", i, err, out)
						return
					}
					marker := fmt.Sprintf(" [%d]: ", i)
					if j := bytes.Index(out, []byte(marker)); j >= 0 {
						k := bytes.LastIndex(out[:j], []byte("Enter code "))
						code, _ = strconv.Atoi(string(out[k+len("Enter code ") : j]))
						out = out[j+len(marker):]
						break
					}
				}
				if _, err := fmt.Fprintf(p, "%d\r", code); err != nil {
					t.Error(err)
					return
				}
			}
			rest, err := io.ReadAll(p)
			if err != nil || !bytes.Contains(append(out, rest...), []byte("done")) {
				t.Errorf("end of output %q, %v; want done", rest, err)
			}
			if st, err := p.Wait(); err != nil || st.Code != 0 {
				t.Errorf("Wait = %v, %v", st, err)
			}
		})
	}
	wg.Wait()
}

// TestNoGoroutineLeak is not parallel, so no other test starts goroutines
// while it counts.
func TestNoGoroutineLeak(t *testing.T) {
	echo, silent := testprog.Build(t, "echo"), testprog.Build(t, "silent")
	var before int
	for i := range 4 {
		if i == 1 {
			// After one round: the first may start goroutines that live
			// as long as the process (os/signal's, when clai was started
			// with SIGINT ignored).
			before = runtime.NumGoroutine()
		}
		ctx, cancel := context.WithCancel(context.Background())
		p, err := pty.Start(ctx, pty.Options{Argv: []string{echo}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Write([]byte("quit\r")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(p); err != nil {
			t.Fatal(err)
		}
		wait(t, p)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		cancel()

		p, err = pty.Start(context.Background(), pty.Options{Argv: []string{silent}})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Close waited for the driver's goroutines; give the runtime a moment
	// to retire them from the count.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

func TestReadDeadline(t *testing.T) {
	t.Parallel()
	p, err := pty.Start(t.Context(), pty.Options{Argv: []string{testprog.Build(t, "echo")}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var out []byte
	buf := make([]byte, 1024)
	readUntil := func(marker string) {
		t.Helper()
		if err := p.SetReadDeadline(time.Now().Add(timeout)); err != nil {
			t.Fatal(err)
		}
		for !bytes.Contains(out, []byte(marker)) {
			n, err := p.Read(buf)
			out = append(out, buf[:n]...)
			if err != nil {
				t.Fatalf("Read: %v; output %q", err, out)
			}
		}
		out = out[:0]
	}
	readUntil("> ")

	// The program waits: a deadline in the past, or a short one, ends the
	// Read with os.ErrDeadlineExceeded, and reading goes on after it.
	for _, d := range []time.Duration{-time.Second, 20 * time.Millisecond} {
		if err := p.SetReadDeadline(time.Now().Add(d)); err != nil {
			t.Fatal(err)
		}
		if n, err := p.Read(buf); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Read past the deadline (%v) = %d, %v; want os.ErrDeadlineExceeded", d, n, err)
		}
	}
	if _, err := p.Write([]byte("abc\r")); err != nil {
		t.Fatal(err)
	}
	readUntil("ABC")

	// After the exit a stale deadline does not hide the last output.
	if err := p.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("quit\r")); err != nil {
		t.Fatal(err)
	}
	wait(t, p)
	if err := p.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := p.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Read: %v", err)
		}
	}
	if !bytes.Contains(out, []byte("bye")) {
		t.Errorf("output after the exit lacks bye: %q", out)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.SetReadDeadline(time.Now()); !errors.Is(err, driver.ErrEnded) && err != nil {
		t.Errorf("SetReadDeadline after Close = %v, want nil or ErrEnded", err)
	}
}
