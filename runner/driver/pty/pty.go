// Package pty is the driver that spawns a program in a pseudo-terminal of its
// own and talks to it through the master side.
//
// The program runs in a new session with the terminal as its controlling
// terminal, so it and everything it starts form one process group (and one
// session) that Close and context cancellation end as a whole: SIGHUP and
// SIGTERM first, SIGKILL after a grace period, and the program is always
// waited for. Output is read from the master directly, in the caller's
// chunks, without any copying goroutine. The program gets the default action
// for SIGINT and SIGHUP even when clai runs with them ignored, so Ctrl-C
// written to the terminal interrupts it.
//
// On Linux everything the program started is killed, found through /proc,
// a cgroup of its own where one can be made, and (see AdoptOrphans) the
// orphans this process adopts: a descendant that a job-control shell moved
// to a process group of its own, or a daemon that left the session, cannot
// survive either; and the program is killed by the kernel when clai dies.
// On macOS and the BSDs the process group is killed, and what left it can
// outlive the run (see track_bsd.go).
package pty

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/runner/driver"
)

// Defaults for the zero values of Options.
const (
	DefaultRows   = 24
	DefaultCols   = 80
	DefaultGrace  = 2 * time.Second
	DefaultLinger = 250 * time.Millisecond
)

// Options says what to run and how.
type Options struct {
	// Argv is the program and its arguments; no shell is involved. A name
	// without a slash is looked up in the PATH of Env.
	Argv []string
	// Env is the program's full environment ("KEY=value"). Nil means clai's
	// own environment. Nothing is added (set TERM yourself).
	Env []string
	// Dir is the working directory; empty means clai's.
	Dir string
	// Rows and Cols are the initial terminal size; zero means 24x80.
	Rows, Cols uint16
	// Grace is how long Close (or cancelling the context) waits after
	// SIGHUP and SIGTERM before it sends SIGKILL. Zero means DefaultGrace;
	// negative means SIGKILL at once.
	Grace time.Duration
	// Linger bounds how long Read keeps waiting for output once the program
	// itself has exited while a descendant still holds the terminal open:
	// after that much quiet, Read returns io.EOF. Zero means DefaultLinger;
	// negative means wait until the terminal is closed by everyone.
	Linger time.Duration

	// noCgroup starts the program without a cgroup of its own, as where
	// none can be made (for tests of the other ways processes are tracked).
	noCgroup bool
}

// Process is a program running in a pseudo-terminal. It implements
// driver.Driver. Close must be called, even after the program ended: it ends
// what the program left behind and releases the terminal.
type Process struct {
	master *os.File
	// raw reaches master's descriptor for the reads and writes of clai itself.
	raw    syscall.RawConn
	cmd    *exec.Cmd
	pid    int
	grace  time.Duration
	linger time.Duration

	exited   atomic.Bool  // the program exited (it may not be reaped yet)
	eof      atomic.Bool  // Read returned io.EOF; it always will
	deadline atomic.Int64 // of SetReadDeadline, Unix nanoseconds; 0: none
	// name is the terminal's path, for opening it again where the kernel
	// cannot get it from the master.
	name string
	// waiting is set while ReadWait may be blocked in the kernel; lastRead is
	// when it last got output (Unix nanoseconds); lingered is set when the
	// program's descendants were quiet for the linger period after it exited.
	waiting  atomic.Bool
	lastRead atomic.Int64
	lingered atomic.Bool
	// quietSince is when the reader, after the program exited, last found no
	// output. Only the one reading goroutine uses it.
	quietSince time.Time

	// rd and wr carry the arguments and results of one read and one write
	// through raw.Control, whose callbacks, rdFn and wrFn, are made once:
	// a closure per call would cost allocations on every question and answer.
	// rdMu and wrMu keep concurrent calls apart.
	rdMu     sync.Mutex
	rd       ioCall
	rdFn     func(fd uintptr)
	rdWaitFn func(fd uintptr)
	wrMu     sync.Mutex
	wr       ioCall
	wrFn     func(fd uintptr)

	done   chan struct{} // closed once the program is reaped and status set
	status driver.ExitStatus
	// track finds every process the program started, to end them with it.
	track   *tracker
	waitErr error

	// sigMu orders reaping the program against signalling its process
	// group, so a group signal never reaches a stranger that got the
	// program's recycled PID (see signalGroup).
	sigMu  sync.Mutex
	reaped bool

	termOnce  sync.Once
	closeOnce sync.Once
	// isClosed is set, and then closing closed, when Close is called. The
	// flag is an atomic, as waiting is, so that ReadWait and Close, each
	// setting one and then reading the other, cannot both miss (Go's atomics,
	// unlike its channels, are ordered as one sequence).
	isClosed atomic.Bool
	closing  chan struct{}
	closeErr error
	wg       sync.WaitGroup
}

var _ driver.Driver = (*Process)(nil)

// ioCall is one read or write on the master's descriptor.
type ioCall struct {
	b        []byte
	deadline time.Time
	n        int
	err      error
}

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
	done := make(chan struct{})
	cmd := newCmd()
	err = startOnOwnThread(func() error { return startWithDefaultSignals(cmd.Start) }, done)
	if err != nil && track.usesCgroup() {
		// The kernel would not start it in the cgroup (no clone3, a cgroup it
		// may not enter): tracking must never stop a program from starting.
		track.dropCgroup()
		cmd = newCmd()
		err = startOnOwnThread(func() error { return startWithDefaultSignals(cmd.Start) }, done)
	}
	_ = tty.Close() // the child has its own copy; ours would keep EOF away
	if err != nil {
		track.dropCgroup()
		_ = master.Close()
		return nil, fmt.Errorf("start %q: %w", name, err)
	}
	track.started(cmd.Process.Pid)

	p := &Process{
		master:  master,
		raw:     raw,
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		grace:   opts.Grace,
		linger:  opts.Linger,
		name:    tty.Name(),
		done:    done,
		closing: make(chan struct{}),
		track:   track,
	}
	p.rdFn, p.rdWaitFn, p.wrFn = p.controlRead, p.controlReadWait, p.controlWrite
	if p.grace == 0 {
		p.grace = DefaultGrace
	}
	if p.linger == 0 {
		p.linger = DefaultLinger
	}
	p.wg.Add(1)
	go p.reap()
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

// control runs fn on f's descriptor without taking it out of the poller
// (which (*os.File).Fd would do).
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

func setSize(master *os.File, rows, cols uint16) error {
	return control(master, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	})
}

// Pid is the process id of the program, which is also the id of its process
// group and session.
func (p *Process) Pid() int { return p.pid }

// Done is closed once the program has ended and Wait no longer blocks.
func (p *Process) Done() <-chan struct{} { return p.done }

// Read reads the program's output. It returns io.EOF once the program ended
// and its output is drained: when every holder of the terminal closed it, or
// Options.Linger after the program exited while a descendant keeps the
// terminal open, or after Close. Past a deadline set with SetReadDeadline it
// fails with an error wrapping os.ErrDeadlineExceeded.
func (p *Process) Read(b []byte) (int, error) {
	for {
		// Wake at least every readPoll to notice Close and a new deadline.
		wake := time.Now().Add(readPoll)
		caller := p.deadline.Load()
		if caller != 0 && caller < wake.UnixNano() {
			wake = time.Unix(0, caller)
		}
		n, err := p.ReadBefore(b, wake)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		if p.callerDeadlinePassed() {
			return 0, err
		}
	}
}

// readPoll bounds how long Read waits in one go, so that Close ends it.
const readPoll = 50 * time.Millisecond

// ReadBefore reads the program's output like Read, waiting at most until
// deadline: past it, it returns 0 and an error wrapping os.ErrDeadlineExceeded.
// Close does not interrupt it: callers bound the deadline. The latency of every
// question and answer depends on how directly it wakes (see openPTY).
func (p *Process) ReadBefore(b []byte, deadline time.Time) (int, error) {
	if p.eof.Load() || p.closed() {
		p.eof.Store(true)
		return 0, io.EOF
	}
	p.rdMu.Lock()
	defer p.rdMu.Unlock()
	p.rd = ioCall{b: b, deadline: deadline}
	cerr := p.raw.Control(p.rdFn)
	n, rerr := p.rd.n, p.rd.err
	p.rd = ioCall{}
	if cerr != nil {
		// The terminal was closed.
		p.eof.Store(true)
		return 0, io.EOF
	}
	return n, rerr
}

// ReadWait reads the program's output like Read, but waits for it in a blocking
// read(2), with no deadline: of the ways to wait, the one that wakes soonest and
// costs least when output arrives, which is what the latency of every question
// and answer depends on. It returns io.EOF when every holder of the terminal
// closed it, Options.Linger after the program exited while a descendant keeps
// the terminal open, and after Close: those end a pending ReadWait. Calls must
// not overlap with those of Read and ReadBefore.
func (p *Process) ReadWait(b []byte) (int, error) {
	p.rdMu.Lock()
	defer p.rdMu.Unlock()
	// waiting is set before closing and lingered are looked at, and Close and
	// the linger watch set those before they look at waiting: whichever comes
	// second sees the other.
	p.waiting.Store(true)
	defer p.waiting.Store(false)
	for {
		if p.eof.Load() || p.closed() || p.lingered.Load() {
			p.eof.Store(true)
			return 0, io.EOF
		}
		p.rd = ioCall{b: b}
		cerr := p.raw.Control(p.rdWaitFn)
		n, err := p.rd.n, p.rd.err
		p.rd = ioCall{}
		switch {
		case cerr != nil || p.closed() || p.lingered.Load():
			// Closed, or woken to end: what was read is past the end.
			p.eof.Store(true)
			return 0, io.EOF
		case n > 0:
			if p.exited.Load() {
				p.lastRead.Store(time.Now().UnixNano())
			}
			return n, nil
		case !errors.Is(err, unix.EAGAIN):
			return 0, err
		}
	}
}

// controlReadWait is ReadWait's callback for raw.Control, on p.rd. Once the
// program exited, or after Close, the master is non-blocking (see endWrites)
// and a read that finds nothing returns EAGAIN: then it waits in poll, a while
// at a time, and ReadWait reads again.
func (p *Process) controlReadWait(fd uintptr) {
	p.rd.n, p.rd.err = p.readOnce(int(fd), p.rd.b)
	if errors.Is(p.rd.err, unix.EAGAIN) {
		_, _ = waitReadable(int(fd), readPoll)
	}
}

// wakeReader ends the wait of a ReadWait blocked in the kernel, which nothing
// else ends while a descendant holds the terminal open: it writes a byte to the
// terminal, which arrives as output. The caller has first set what ReadWait
// finds on waking (closing or lingered), so the byte is never taken for the
// program's.
func (p *Process) wakeReader() {
	if !p.waiting.Load() {
		return
	}
	_ = control(p.master, func(fd int) error {
		t, err := openPeer(fd, p.name)
		if err != nil {
			return err
		}
		_, _ = unix.Write(t, []byte{0})
		return unix.Close(t)
	})
}

// lingerWatch ends a ReadWait that waits for the descendants of the exited
// program: once they have been quiet for the linger period, the output is over.
func (p *Process) lingerWatch(exitedAt time.Time) {
	defer p.wg.Done()
	t := time.NewTimer(p.linger)
	defer t.Stop()
	for {
		select {
		case <-p.closing:
			return
		case <-t.C:
		}
		if p.eof.Load() {
			return
		}
		quiet := exitedAt
		if r := p.lastRead.Load(); r > quiet.UnixNano() {
			quiet = time.Unix(0, r)
		}
		if wait := p.linger - time.Since(quiet); wait > 0 {
			t.Reset(wait)
			continue
		}
		p.lingered.Store(true)
		p.wakeReader()
		return
	}
}

// controlRead is ReadBefore's callback for raw.Control, on p.rd.
func (p *Process) controlRead(fd uintptr) {
	p.rd.n, p.rd.err = p.readBefore(int(fd), p.rd.b, p.rd.deadline)
}

// controlWrite is Write's callback for raw.Control, on p.wr: one write(2). The
// master is blocking, so a write that finds no room in the terminal's input
// waits in the kernel until the program reads; endWrites ends that wait when
// the program exits and on Close.
func (p *Process) controlWrite(fd uintptr) {
	p.wr.n, p.wr.err = unix.Write(int(fd), p.wr.b)
}

// endWrites makes every write, pending or to come, return instead of waiting
// for room in the terminal's input: the master turns non-blocking for good,
// then a write waiting in the kernel is woken to see it (see wakeWriters). It
// is called once the program exited, and on Close: a program that reads
// nothing, or a descendant holding the terminal after the program exited,
// cannot keep a write waiting past those.
func (p *Process) endWrites() {
	_ = control(p.master, func(fd int) error {
		if err := unix.SetNonblock(fd, true); err != nil {
			return err
		}
		return wakeWriters(fd)
	})
}

func (p *Process) readBefore(fd int, b []byte, deadline time.Time) (int, error) {
	for {
		now := time.Now()
		left := deadline.Sub(now)
		if p.linger > 0 && p.exited.Load() {
			// The program exited: once its descendants have been quiet for
			// the linger period, the output is over.
			if p.quietSince.IsZero() {
				p.quietSince = now
			}
			linger := p.linger - now.Sub(p.quietSince)
			if linger <= 0 {
				p.eof.Store(true)
				return 0, io.EOF
			}
			left = min(left, linger)
		}
		// Wait for something to read. The master is blocking: a read is only
		// tried once the terminal is readable, at its end (POLLHUP) or in
		// error, so it does not block. Past the deadline, what is already
		// there is still read.
		ready, err := waitReadable(fd, left)
		switch {
		case err != nil && !errors.Is(err, unix.EINTR):
			return 0, fmt.Errorf("poll pty: %w", err)
		case ready > 0:
			n, err := p.readOnce(fd, b)
			if !errors.Is(err, unix.EAGAIN) {
				return n, err
			}
		case left <= 0 && err == nil:
			return 0, fmt.Errorf("read pty: %w", os.ErrDeadlineExceeded)
		}
	}
}

// readOnce is one read(2) of the master. A read that finds nothing blocks until
// there is output or the terminal's end, or returns EAGAIN once endWrites made
// the master non-blocking.
func (p *Process) readOnce(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		switch {
		case n > 0:
			p.quietSince = time.Time{}
			return n, nil
		case err == nil || errors.Is(err, unix.EIO):
			// 0 bytes or EIO: every holder of the terminal closed it.
			p.eof.Store(true)
			return 0, io.EOF
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return 0, err
		default:
			return 0, fmt.Errorf("read pty: %w", err)
		}
	}
}

// callerDeadlinePassed reports whether the deadline of SetReadDeadline, if
// any, has passed.
func (p *Process) callerDeadlinePassed() bool {
	d := p.deadline.Load()
	return d != 0 && time.Now().UnixNano() >= d
}

// SetReadDeadline bounds the next Reads in time (and a pending one, within
// readPoll): past t, Read fails with an error wrapping os.ErrDeadlineExceeded.
// Once the program has exited, Options.Linger governs Read as well, so the
// remaining output is still drained to io.EOF.
func (p *Process) SetReadDeadline(t time.Time) error {
	var d int64
	if !t.IsZero() {
		d = t.UnixNano()
	}
	p.deadline.Store(d)
	return nil
}

var _ driver.WaitReader = (*Process)(nil)

// Write sends b to the program's terminal input. Once the program exited, or
// after Close, it fails with an error wrapping driver.ErrEnded (the terminal
// itself would swallow the bytes); so does a Write waiting for room in the
// terminal's input when the program exits.
func (p *Process) Write(b []byte) (int, error) {
	p.wrMu.Lock()
	defer p.wrMu.Unlock()
	defer func() { p.wr = ioCall{} }()
	written := 0
	for written < len(b) {
		if p.exited.Load() || p.closed() {
			return written, fmt.Errorf("write pty: %w", driver.ErrEnded)
		}
		p.wr = ioCall{b: b[written:]}
		err := p.raw.Control(p.wrFn)
		n, werr := p.wr.n, p.wr.err
		if err != nil {
			return written, fmt.Errorf("write pty: %w", driver.ErrEnded)
		}
		written += max(n, 0)
		switch {
		case werr == nil, errors.Is(werr, unix.EINTR), errors.Is(werr, unix.EAGAIN):
		case errors.Is(werr, unix.EIO):
			return written, fmt.Errorf("write pty: %w", driver.ErrEnded)
		default:
			return written, fmt.Errorf("write pty: %w", werr)
		}
	}
	return written, nil
}

// Resize sets the terminal size; the program's foreground process group gets
// SIGWINCH.
func (p *Process) Resize(rows, cols uint16) error {
	if err := setSize(p.master, rows, cols); err != nil {
		if p.closed() {
			err = driver.ErrEnded
		}
		return fmt.Errorf("resize pty to %dx%d: %w", rows, cols, err)
	}
	return nil
}

// Echo reports whether the terminal echoes input, as the program set it.
// A program reading a password turns echo off, so this tells a secret prompt
// from an ordinary one.
func (p *Process) Echo() (bool, error) { return p.termMode(termEcho) }

// LineMode reports whether the terminal reads whole lines (canonical mode), as
// the program set it: at a password prompt it does, with echo off, while a
// full-screen program in raw mode reads each key.
func (p *Process) LineMode() (bool, error) { return p.termMode(termLineMode) }

// termMode reads one flag of the terminal's mode with read.
func (p *Process) termMode(read func(fd int) (bool, error)) (bool, error) {
	var on bool
	err := control(p.master, func(fd int) (err error) {
		on, err = read(fd)
		return err
	})
	if err != nil {
		if p.closed() {
			err = driver.ErrEnded
		}
		return false, fmt.Errorf("read terminal mode: %w", err)
	}
	return on, nil
}

// Wait blocks until the program ended and returns how it ended.
func (p *Process) Wait() (driver.ExitStatus, error) {
	<-p.done
	return p.status, p.waitErr
}

// Close ends the program and what it started if they still run (SIGHUP and
// SIGTERM to the process group, SIGKILL to the group and the session after
// Options.Grace), waits for the program, closes the terminal and waits for
// the driver's goroutines. A pending Read returns io.EOF. Idempotent.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.isClosed.Store(true)
		close(p.closing)
		p.endWrites()
		p.terminate()
		p.wakeReader()
		if err := p.master.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			p.closeErr = fmt.Errorf("close pty: %w", err)
		}
		p.wg.Wait()
	})
	return p.closeErr
}

// closed reports whether Close was called.
func (p *Process) closed() bool { return p.isClosed.Load() }

// watch ends the program when ctx is cancelled before Close.
func (p *Process) watch(ctx context.Context) {
	defer p.wg.Done()
	select {
	case <-ctx.Done():
		p.terminate()
	case <-p.closing:
	}
}

// reap waits for the program to exit, records its status and closes done.
func (p *Process) reap() {
	defer p.wg.Done()
	var err error
	if waitExited(p.pid) {
		// The program is a zombie: its PID, and so its process group
		// id, cannot be recycled until it is reaped under sigMu.
		p.markExited()
		p.sigMu.Lock()
		err = p.cmd.Wait()
		p.reaped = true
		p.sigMu.Unlock()
	} else {
		err = p.cmd.Wait()
		p.sigMu.Lock()
		p.reaped = true
		p.sigMu.Unlock()
	}
	p.markExited()
	p.endWrites()
	p.status, p.waitErr = exitStatus(p.cmd.ProcessState, err)
	if p.linger > 0 {
		p.wg.Add(1)
		go p.lingerWatch(time.Now())
	}
	close(p.done)
}

// markExited records that the program exited: reads start their linger
// period and writes fail.
func (p *Process) markExited() {
	p.exited.Store(true)
}

func exitStatus(ps *os.ProcessState, err error) (driver.ExitStatus, error) {
	if ps == nil {
		return driver.ExitStatus{Code: -1}, fmt.Errorf("wait: %w", err)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		err = fmt.Errorf("wait: %w", err)
	} else {
		err = nil
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return driver.ExitStatus{Code: 128 + int(ws.Signal()), Signal: ws.Signal().String()}, err
	}
	return driver.ExitStatus{Code: ps.ExitCode()}, err
}
