// Starting a program: the PATH of its own environment, a new
// pseudo-terminal, a new session with that terminal as its controlling
// terminal, the default action for SIGHUP and SIGINT, and the tracker that
// follows what it starts (see track_linux.go and track_bsd.go).

package pty

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Start runs opts.Argv in a new pseudo-terminal. Cancelling ctx ends the
// program as Close does, but leaves the terminal open so the remaining output
// can still be read; Close must still be called. Cancelling is concurrent with
// the caller's own reaction to ctx: a caller that tells "cancelled" from
// "the program ended" must check ctx when Read reports io.EOF, or pass
// context.WithoutCancel and end the program with Close.
func Start(ctx context.Context, opts Options) (*Process, error) {
	if len(opts.Argv) == 0 || opts.Argv[0] == "" {
		return nil, errors.New("start: empty command")
	}
	name := opts.Argv[0]
	if ctx.Err() != nil {
		return nil, fmt.Errorf("start %q: %w", name, context.Cause(ctx))
	}
	path, err := lookPath(name, opts.Env)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", name, err)
	}
	if opts.Dir != "" {
		// Checked here: a failed chdir in the child would be reported as
		// if the program itself were missing.
		if st, err := os.Stat(opts.Dir); err != nil {
			return nil, fmt.Errorf("start %q: working directory: %w", name, err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("start %q: working directory %s: not a directory", name, opts.Dir)
		}
	}
	rows, cols := opts.Rows, opts.Cols
	if rows == 0 {
		rows = DefaultRows
	}
	if cols == 0 {
		cols = DefaultCols
	}
	master, tty, err := openPTY()
	if err != nil {
		return nil, fmt.Errorf("start %q: open pty: %w", name, err)
	}
	raw, err := master.SyscallConn()
	if err != nil {
		_ = tty.Close()
		_ = master.Close()
		return nil, fmt.Errorf("start %q: %w", name, err)
	}
	if err := setSize(master, rows, cols); err != nil {
		_ = tty.Close()
		_ = master.Close()
		return nil, fmt.Errorf("start %q: set terminal size: %w", name, err)
	}
	track := newTracker(!opts.noCgroup)
	newCmd := func() *exec.Cmd {
		// Ctty 0 is the child's stdin, the terminal.
		attr := &syscall.SysProcAttr{Setsid: true, Setctty: true}
		track.procAttr(attr)
		return &exec.Cmd{Path: path, Args: opts.Argv, Env: opts.Env, Dir: opts.Dir, Stdin: tty, Stdout: tty, Stderr: tty, SysProcAttr: attr}
	}
	// The program's reaper runs on the thread that started it, once the
	// program runs (startOnOwnThread).
	reaper := make(chan func(), 1)
	cmd := newCmd()
	err = startOnOwnThread(func() error { return startWithDefaultSignals(cmd.Start) }, reaper)
	if err != nil && track.usesCgroup() {
		// The kernel would not start it in the cgroup (no clone3, a cgroup it
		// may not enter): tracking must never stop a program from starting.
		track.dropCgroup()
		cmd = newCmd()
		err = startOnOwnThread(func() error { return startWithDefaultSignals(cmd.Start) }, reaper)
	}
	_ = tty.Close() // the child has its own copy; ours would keep EOF away
	if err != nil {
		track.dropCgroup()
		_ = master.Close()
		return nil, fmt.Errorf("start %q: %w", name, err)
	}
	track.started(cmd.Process.Pid)

	grace, linger := opts.Grace, opts.Linger
	if grace == 0 {
		grace = defaultGrace
	}
	if linger == 0 {
		linger = defaultLinger
	}
	now := opts.now
	if now == nil {
		now = time.Now
	}
	p := &Process{
		master:  master,
		raw:     raw,
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		grace:   grace,
		linger:  lingerClock{period: linger, now: now},
		name:    tty.Name(),
		done:    make(chan struct{}),
		closing: make(chan struct{}),
		track:   track,
	}
	p.rdFn, p.rdWaitFn, p.wrFn = p.controlRead, p.controlReadWait, p.controlWrite
	p.wg.Add(1)
	reaper <- p.reap
	if track.adopting() {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			track.reapOrphans(p.pid, p.closing)
		}()
	}
	if ctx.Done() != nil {
		p.wg.Add(1)
		go p.watch(ctx)
	}
	return p, nil
}

// openPTY opens a pseudo-terminal pair. The master stays in blocking mode, out
// of the runtime's poller: clai reads and writes it with plain system calls,
// one per read or write. ReadWait waits for output in a blocking read(2), the
// most direct wake-up there is; Read and ReadBefore wait in ppoll(2) (poll(2)
// off Linux, see waitReadable), which a deadline can end, and read only what
// is there. A write that finds no room waits in the kernel for the program to
// read, until the program exits or Close: then endWrites ends the wait, so a
// program that reads nothing cannot hang clai.
func openPTY() (master, tty *os.File, err error) {
	fd, t, err := openTerminal()
	if err != nil {
		return nil, nil, err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		_ = unix.Close(fd)
		_ = t.Close()
		return nil, nil, fmt.Errorf("set master blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), t, nil
}

// openTerminalByPath opens a pseudo-terminal the portable way (creack/pty: the
// master, then the terminal by the name the master gives) and returns the
// master's descriptor, close-on-exec, and the terminal.
func openTerminalByPath() (int, *os.File, error) {
	m, t, err := cpty.Open()
	if err != nil {
		return -1, nil, err
	}
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	_ = m.Close()
	if err != nil {
		_ = t.Close()
		return -1, nil, fmt.Errorf("dup master: %w", err)
	}
	return fd, t, nil
}

// lookPath finds name the way execvp does, but in the PATH of env (the
// program's environment) rather than clai's. Relative PATH entries are
// ignored, as exec.LookPath refuses them.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil // relative to Options.Dir, as exec.Cmd.Path
	}
	path, ok := "", false
	if env == nil {
		path, ok = os.LookupEnv("PATH")
	} else {
		for _, kv := range env {
			if v, found := strings.CutPrefix(kv, "PATH="); found {
				path, ok = v, true // the last one wins, as in exec.Cmd
			}
		}
	}
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		file := filepath.Join(dir, name)
		if st, err := os.Stat(file); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
			return file, nil
		}
	}
	return "", exec.ErrNotFound
}

// spawnMu serialises starting programs while clai itself ignores SIGHUP or
// SIGINT (see startWithDefaultSignals).
var spawnMu sync.Mutex

// startWithDefaultSignals runs start (which forks and execs the program) so
// that the program gets the default action for SIGHUP and SIGINT even when
// clai was started with them ignored (nohup, a background job of a script,
// some CI runners). An ignored signal stays ignored across exec, and Go leaves
// these two as it found them, so without this Ctrl-C typed into the program's
// terminal would do nothing. Expect's spawn resets signals the same way.
//
// The trick: while a channel is registered with signal.Notify, the runtime has
// its own handler installed, and a forked child resets handled signals to the
// default; signal.Stop then puts SIG_IGN back. A signal clai receives in
// between goes to the unread channel, so clai still ignores it.
func startWithDefaultSignals(start func() error) error {
	spawnMu.Lock()
	defer spawnMu.Unlock()
	sigs := ignoredSignals(syscall.SIGHUP, syscall.SIGINT)
	if len(sigs) == 0 {
		return start()
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	defer signal.Stop(ch)
	return start()
}

func ignoredSignalsPortable(sigs ...syscall.Signal) []os.Signal {
	var out []os.Signal
	for _, s := range sigs {
		if signal.Ignored(s) {
			out = append(out, s)
		}
	}
	return out
}
