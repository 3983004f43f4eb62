package pty_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver/pty"
)

// closeAndWantGone closes the program of c and fails unless the processes are
// gone soon after.
func closeAndWantGone(t *testing.T, c *console, pids ...int) {
	t.Helper()
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitGone(t, pids...)
	c.rest()
}

// TestCloseEndsSetsidDaemon: a program starts a process that leaves its
// session (setsid, as a daemon does) and exits. Its cgroup holds the daemon,
// and Close ends it.
func TestCloseEndsSetsidDaemon(t *testing.T) {
	t.Parallel()
	if !pty.CgroupAvailable() {
		t.Skip("no writable cgroup v2 here: a daemon whose parent exited is found only by a subreaper (TestCloseEndsAdoptedDaemon)")
	}
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "forker"), "-setsid", "-exit"}})
	_, daemon := readyPIDs(t, c)
	c.wait()
	if gone(daemon) {
		t.Fatalf("daemon %d is not running before Close", daemon)
	}
	closeAndWantGone(t, c, daemon)
}

// TestCloseEndsDaemonOfLiveParent: without a cgroup, a process that left the
// program's session is found through its parent, a process of the program.
func TestCloseEndsDaemonOfLiveParent(t *testing.T) {
	t.Parallel()
	c := start(t, pty.WithoutCgroup(pty.Options{Argv: []string{testprog.Build(t, "forker"), "-setsid"}}))
	parent, daemon := readyPIDs(t, c)
	closeAndWantGone(t, c, parent, daemon)
}

// TestCloseEndsAdoptedDaemon: without a cgroup, a daemon whose parent exited is
// adopted by a process that adopts orphans (as clai does), and Close ends it.
// The adopting process is this test binary run again (adoptHelper), since
// adopting is for a process that runs one program at a time.
func TestCloseEndsAdoptedDaemon(t *testing.T) {
	t.Parallel()
	out := runAdoptHelper(t, "TestAdoptHelper", testprog.Build(t, "forker"))
	var daemon int
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "daemon="); ok {
			daemon, _ = strconv.Atoi(v)
		}
	}
	if daemon == 0 {
		t.Fatalf("the helper named no daemon:\n%s", out)
	}
	if !gone(daemon) {
		_ = unix.Kill(daemon, unix.SIGKILL)
		t.Fatalf("daemon %d outlived the helper's Close:\n%s", daemon, out)
	}
}

// runAdoptHelper runs the test named helper in this test binary run again, with
// arg for it, and returns its output.
func runAdoptHelper(t *testing.T, helper, arg string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+helper+"$", "-test.v")
	cmd.Env = append(os.Environ(), "CLAI_PTY_ADOPT_HELPER="+arg)
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("helper: %v\n%s", err, out)
	case strings.Contains(string(out), "--- SKIP: "+helper):
		t.Skipf("the helper skipped:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+helper):
		t.Fatalf("the helper did not run:\n%s", out)
	}
	return out
}

// TestAdoptedOrphansReapedWhileRunning: a process that adopts orphans reaps
// those that exit while the program still runs, as init would have; none is
// left a zombie until the run ends.
func TestAdoptedOrphansReapedWhileRunning(t *testing.T) {
	t.Parallel()
	runAdoptHelper(t, "TestReapHelper", "reap")
}

// TestReapHelper is TestAdoptedOrphansReapedWhileRunning's adopting process;
// on its own it does nothing.
func TestReapHelper(t *testing.T) {
	if os.Getenv("CLAI_PTY_ADOPT_HELPER") != "reap" {
		t.Skip("run by TestAdoptedOrphansReapedWhileRunning")
	}
	if err := pty.AdoptOrphans(); err != nil {
		t.Skip(err)
	}
	// The inner shell exits at once, leaving its background job to this
	// process, which the job's exit then makes a zombie of.
	c := start(t, pty.WithoutCgroup(pty.Options{Argv: []string{"sh", "-c", `sh -c 'sleep 0.05 & echo orphan=$!'; echo waiting; exec sleep 1000`}}))
	c.expect("orphan=")
	orphan, err := strconv.Atoi(strings.TrimSpace(c.expect("\n")))
	if err != nil {
		t.Fatal(err)
	}
	c.expect("waiting")
	deadline := time.Now().Add(timeout)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(orphan)); err != nil {
			break // exited and reaped
		}
		if time.Now().After(deadline) {
			t.Fatalf("orphan %d was not reaped while the program ran", orphan)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-c.p.Done():
		t.Fatal("the program ended")
	default:
	}
}

// TestAdoptHelper is TestCloseEndsAdoptedDaemon's adopting process; on its
// own it does nothing.
func TestAdoptHelper(t *testing.T) {
	forker := os.Getenv("CLAI_PTY_ADOPT_HELPER")
	if forker == "" || forker == "reap" || forker == "exit" {
		t.Skip("run by TestCloseEndsAdoptedDaemon")
	}
	if err := pty.AdoptOrphans(); err != nil {
		t.Skip(err)
	}
	c := start(t, pty.WithoutCgroup(pty.Options{Argv: []string{forker, "-setsid", "-exit"}}))
	_, daemon := readyPIDs(t, c)
	fmt.Printf("daemon=%d\n", daemon)
	c.wait()
	if gone(daemon) {
		t.Fatalf("daemon %d is not running before Close", daemon)
	}
	if err := c.p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Close ended it, waited for it and reaped it: no zombie is left.
	switch _, err := os.Stat("/proc/" + strconv.Itoa(daemon)); {
	case !gone(daemon):
		t.Errorf("daemon %d outlived Close", daemon)
	case err == nil:
		t.Errorf("daemon %d is a zombie after Close: it was not reaped", daemon)
	}
}

// TestProgramOutlivesStartingThread: the program gets SIGKILL when clai dies,
// through the parent-death signal, which the kernel sends when the thread that
// forked ends. The thread of the goroutine that called Start may end first
// (here: it is locked and its goroutine returns); the program must not.
func TestProgramOutlivesStartingThread(t *testing.T) {
	t.Parallel()
	type started struct {
		p       *pty.Process
		tid     int
		err     error
		mainTID bool
	}
	ch := make(chan started, 1)
	var s started
	// This goroutine keeps its thread (the main thread, often): the other
	// must run on another.
	runtime.LockOSThread()
	for range 100 {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if unix.Gettid() == unix.Getpid() {
				// The main thread never ends (Go wedges it instead): try another.
				runtime.UnlockOSThread()
				ch <- started{mainTID: true}
				return
			}
			p, err := pty.Start(t.Context(), pty.Options{Argv: []string{"cat"}})
			ch <- started{p: p, tid: unix.Gettid(), err: err}
		}()
		if s = <-ch; !s.mainTID {
			break
		}
	}
	runtime.UnlockOSThread()
	switch {
	case s.mainTID:
		t.Skip("every try ran on the main thread")
	case s.err != nil:
		t.Fatal(s.err)
	}
	c := attach(t, s.p)
	// Wait for the thread to end (its entry in /proc goes), or the program.
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-s.p.Done():
			t.Fatalf("the program ended with the thread that started it: %v", c.wait())
		default:
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", s.tid)); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d did not end", s.tid)
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.send("still here\r")
	c.expect("still here\r\nstill here\r\n")
}

// TestCgroupEndsAProgramWithoutReadingEveryProcess: a program in a cgroup
// of its own is ended by its cgroup, which holds every process it started:
// no read of every process of /proc (hundreds of files on a busy machine,
// at every run's end), and the daemon it left behind is gone all the same.
// Without a cgroup, the scans find it.
func TestCgroupEndsAProgramWithoutReadingEveryProcess(t *testing.T) {
	t.Parallel()
	if !pty.CgroupAvailable() {
		t.Skip("no writable cgroup v2 here")
	}
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "forker"), "-setsid"}})
	parent, daemon := readyPIDs(t, c)
	closeAndWantGone(t, c, parent, daemon)
	if n := pty.ProcScans(c.p); n != 0 {
		t.Errorf("%d reads of every process, want none", n)
	}

	c = start(t, pty.WithoutCgroup(pty.Options{Argv: []string{testprog.Build(t, "forker"), "-setsid"}}))
	parent, daemon = readyPIDs(t, c)
	closeAndWantGone(t, c, parent, daemon)
	if n := pty.ProcScans(c.p); n == 0 {
		t.Error("without a cgroup, no read of every process found the daemon")
	}
}

// TestProgramsOwnExitReadsNoProcessTable: in a process that adopts
// orphans, a program that exits with nothing left behind is reaped without
// a read of every process of /proc (hundreds of files at every run's end);
// the exits after it are adopted ones, and are looked for
// (TestAdoptedOrphansReapedWhileRunning).
func TestProgramsOwnExitReadsNoProcessTable(t *testing.T) {
	t.Parallel()
	out := runAdoptHelper(t, "TestExitHelper", "exit")
	if !strings.Contains(string(out), "reap scans: 0\n") {
		t.Fatalf("the program's own exit read every process:\n%s", out)
	}
}

// TestExitHelper is TestProgramsOwnExitReadsNoProcessTable's adopting
// process; on its own it does nothing.
func TestExitHelper(t *testing.T) {
	if os.Getenv("CLAI_PTY_ADOPT_HELPER") != "exit" {
		t.Skip("run by TestProgramsOwnExitReadsNoProcessTable")
	}
	if err := pty.AdoptOrphans(); err != nil {
		t.Skip(err)
	}
	c := start(t, pty.WithoutCgroup(pty.Options{Argv: []string{"sh", "-c", "echo done"}}))
	c.expect("done")
	c.wait()
	if err := c.p.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("reap scans: %d\n", pty.ReapScans(c.p))
}
