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
//
// The files follow the program's life: start.go starts it; read.go reads its
// output and write.go writes its input; terminal.go holds the terminal's size
// and modes; close.go ends it, and linger.go measures the quiet after it
// exited. platform.go lists what each platform provides (the files named
// _linux.go and _bsd.go).
package pty

import (
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/clai-sh/clai/runner/driver"
)

// The terminal size for the zero values of Options.Rows and Options.Cols.
const (
	DefaultRows = 24
	DefaultCols = 80
)

// The defaults for the zero values of Options.Grace and Options.Linger.
const (
	defaultGrace  = 2 * time.Second
	defaultLinger = 250 * time.Millisecond
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
	// SIGHUP and SIGTERM before it sends SIGKILL. Zero means 2 seconds;
	// negative means SIGKILL at once.
	Grace time.Duration
	// Linger bounds how long Read keeps waiting for output once the program
	// itself has exited while a descendant still holds the terminal open:
	// after that much quiet, Read returns io.EOF. Zero means 250ms;
	// negative means wait until the terminal is closed by everyone.
	Linger time.Duration

	// noCgroup starts the program without a cgroup of its own, as where
	// none can be made (for tests of the other ways processes are tracked).
	noCgroup bool
	// now is the linger clock's time source; nil means time.Now (tests
	// move time by hand).
	now func() time.Time
}

// Process is a program running in a pseudo-terminal. It implements
// driver.Driver, and driver.Typer: it encodes keys into the bytes a terminal
// sends for them. Close must be called, even after the program ended: it ends
// what the program left behind and releases the terminal.
type Process struct {
	master *os.File
	// raw reaches master's descriptor for the reads and writes of clai itself.
	raw   syscall.RawConn
	cmd   *exec.Cmd
	pid   int
	grace time.Duration
	// linger measures the quiet after the program exited (see lingerClock).
	linger lingerClock

	exited   atomic.Bool  // the program exited (it may not be reaped yet)
	eof      atomic.Bool  // Read returned io.EOF; it always will
	deadline atomic.Int64 // of SetReadDeadline, Unix nanoseconds; 0: none
	// name is the terminal's path, for opening it again where the kernel
	// cannot get it from the master.
	name string
	// waiting is set while ReadWait may be blocked in the kernel; lingered is
	// set when the program's descendants were quiet for the linger period
	// after it exited, and ends ReadWait once what it read is returned.
	waiting  atomic.Bool
	lingered atomic.Bool
	// wokeByByte is set when a ReadWait was woken by a byte written to the
	// terminal, the wake of last resort (see wakeByByte).
	wokeByByte atomic.Bool
	// afterRead, when set (by the package's tests only), is called by ReadWait
	// each time a read of the master returns, before ReadWait looks at what
	// it brought: a test holds the reader there, as a busy machine would.
	afterRead func()

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
	// typed holds the bytes of the keystrokes Type writes, under wrMu.
	typed []byte

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

var _ driver.Typer = (*Process)(nil)

// ioCall is one read or write on the master's descriptor.
type ioCall struct {
	b        []byte
	deadline time.Time
	n        int
	err      error
}
