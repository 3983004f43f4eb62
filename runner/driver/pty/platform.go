// What each platform provides for the rest of the package. The files named
// _linux.go serve Linux; the files named _bsd.go serve macOS, DragonFly,
// FreeBSD, NetBSD and OpenBSD. Each of those files says at its top what it
// provides and what differs on its platform. The declarations below make the
// compiler check, for every platform built, that each of these is there with
// the signature the rest of the package calls.

package pty

import (
	"os"
	"syscall"
	"time"
)

// Waiting for output: poll_linux.go, poll_bsd.go.
var (
	// waitReadable waits until fd is readable, at its end or in error, or
	// until timeout passed; it reports how many descriptors are ready.
	_ func(fd int, timeout time.Duration) (int, error) = waitReadable
)

// The program's process and its terminal: proc_linux.go, proc_bsd.go.
var (
	// waitExited waits for the program to exit without reaping it, where
	// the system can (reporting false where it cannot: then the caller
	// reaps it directly).
	_ func(pid int) bool = waitExited
	// termEcho and termLineMode read the terminal's echo and canonical mode
	// through the master.
	_ func(fd int) (bool, error) = termEcho
	_ func(fd int) (bool, error) = termLineMode
	// ignoredSignals reports which of the signals this process ignores.
	_ func(sigs ...syscall.Signal) []os.Signal = ignoredSignals
	// openTerminal opens a pseudo-terminal: the master's descriptor and the
	// terminal.
	_ func() (master int, tty *os.File, err error) = openTerminal
	// openPeer opens the master's terminal once more, for writing.
	_ func(master int, name string) (int, error) = openPeer
	// wakeWriters wakes every write waiting on the master for room.
	_ func(master int) error = wakeWriters
	// interruptThreads interrupts every thread of this process with a
	// signal its system calls start again after, or reports why it cannot.
	_ func() error = interruptThreads
)

// Following the processes the program starts: track_linux.go,
// track_bsd.go.
var (
	// AdoptOrphans makes this process the reaper of the programs' orphans,
	// or reports errors.ErrUnsupported.
	_ func() error = AdoptOrphans
	// newTracker prepares to follow a program about to start.
	_ func(useCgroup bool) *tracker = newTracker
	// startOnOwnThread runs start, which forks the program, on the thread
	// the program must be started from, and then, once start succeeded,
	// the reaper it is handed, which waits for the program's end, on that
	// same thread.
	_ func(start func() error, reaper <-chan func()) error = startOnOwnThread
	_ processTracker                                       = (*tracker)(nil)
)

// processTracker is what a tracker does for Start and Close.
type processTracker interface {
	// procAttr sets what the program is started with.
	procAttr(attr *syscall.SysProcAttr)
	// usesCgroup reports whether the program is to start in a cgroup of its
	// own; dropCgroup gives that up (the kernel would not start it there).
	usesCgroup() bool
	dropCgroup()
	// started records that the program runs as pid.
	started(pid int)
	// adopting reports whether orphans are adopted; reapOrphans reaps those
	// that came from the program until closing is closed.
	adopting() bool
	reapOrphans(program int, closing <-chan struct{})
	// note records the program's processes before it is asked to end.
	note(program int)
	// killAll kills every process of the program's that can be found, its
	// session as well when session is true.
	killAll(program int, session bool)
	// release waits for what killAll killed and frees what tracking held.
	release(program int)
}
