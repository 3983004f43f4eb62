// Processes and terminals on Linux. Provides (see platform.go) waitExited,
// termEcho, termLineMode, ignoredSignals, openTerminal, openPeer, wakeWriters
// and interruptThreads. What is Linux's own: the program's exit is awaited without
// reaping it (waitid with WNOWAIT), so its PID stays reserved until it is
// reaped; the terminal is got from the master (TIOCGPTPEER), not opened by
// name; ignored signals are read from /proc; a write waiting for room is woken
// with TCXONC; a read waiting in the kernel is woken by a signal to every
// thread, found in /proc. See proc_bsd.go for macOS and the BSDs.

package pty

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited blocks until process pid exited without reaping it, so its PID
// stays reserved. It reports false if it could not wait.
func waitExited(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err == nil
	}
}

// termEcho reports whether the terminal behind fd echoes input. On Linux the
// master of a pseudo-terminal reports the modes of its slave.
func termEcho(fd int) (bool, error) {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return false, err
	}
	return t.Lflag&unix.ECHO != 0, nil
}

func termLineMode(fd int) (bool, error) {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return false, err
	}
	return t.Lflag&unix.ICANON != 0, nil
}

// ignoredSignals returns those of sigs whose disposition in this process is
// SIG_IGN, from /proc/self/status (signal.Ignored does not see the SIG_IGN
// that signal.Stop restores).
func ignoredSignals(sigs ...syscall.Signal) []os.Signal {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ignoredSignalsPortable(sigs...)
	}
	for line := range bytes.Lines(b) {
		hex, ok := bytes.CutPrefix(line, []byte("SigIgn:"))
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(string(bytes.TrimSpace(hex)), 16, 64)
		if err != nil {
			break
		}
		var out []os.Signal
		for _, s := range sigs {
			if mask&(1<<(uint(s)-1)) != 0 {
				out = append(out, s)
			}
		}
		return out
	}
	return ignoredSignalsPortable(sigs...)
}

// openTerminal opens a pseudo-terminal and returns the master's descriptor,
// close-on-exec, and the terminal. The terminal is got from the master itself
// (TIOCGPTPEER), not opened by its name under /dev/pts: where the name leads to
// another devpts instance than the master's (containers, stacked mounts), it
// would be another program's terminal. Kernels before 4.13 open it by name.
func openTerminal() (int, *os.File, error) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		_ = unix.Close(m)
		return -1, nil, fmt.Errorf("unlock pty: %w", err)
	}
	t, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(m), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
	switch {
	case errno == unix.EINVAL || errno == unix.ENOTTY:
		_ = unix.Close(m)
		return openTerminalByPath()
	case errno != 0:
		_ = unix.Close(m)
		return -1, nil, fmt.Errorf("open the terminal of the pty: %w", errno)
	}
	name := "/dev/pts/?"
	if n, err := unix.IoctlGetInt(m, unix.TIOCGPTN); err == nil {
		name = "/dev/pts/" + strconv.Itoa(n)
	}
	return m, os.NewFile(t, name), nil
}

// openPeer opens the terminal of master once more, for writing, so that output
// can be put in front of a reader blocked on master (see Process.wakeReader).
// Where the kernel cannot get it from the master, it is opened by name.
func openPeer(master int, name string) (int, error) {
	flags := unix.O_WRONLY | unix.O_NOCTTY | unix.O_CLOEXEC | unix.O_NONBLOCK
	t, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(master), unix.TIOCGPTPEER, uintptr(flags))
	switch {
	case errno == unix.EINVAL || errno == unix.ENOTTY:
		return unix.Open(name, flags, 0)
	case errno != 0:
		return -1, errno
	}
	return int(t), nil
}

// wakeWriters wakes every write(2) waiting on master for room in the
// terminal's input, so that it looks again at why it waits: whether the
// terminal is still open on the program's side, and whether the master turned
// non-blocking. Stopping the master's output and starting it again is what
// wakes them (TCXONC: TCOOFF, then TCOON); neither changes a byte of the data.
//
// The kernel's own wake-up is not enough: when the program closes the
// terminal, it wakes the writers before it counts the terminal closed, so a
// writer can look too early and wait again, for good.
func wakeWriters(master int) error {
	if err := unix.IoctlSetInt(master, unix.TCXONC, unix.TCOOFF); err != nil {
		return fmt.Errorf("stop terminal output: %w", err)
	}
	if err := unix.IoctlSetInt(master, unix.TCXONC, unix.TCOON); err != nil {
		return fmt.Errorf("restart terminal output: %w", err)
	}
	return nil
}

// interruptThreads sends SIGURG to every thread of this process, so that a
// read waiting in the kernel on a master made non-blocking starts again and
// returns (see Process.wakeReader). SIGURG is the signal the Go runtime
// preempts goroutines with: it takes one more in its stride, and a system
// call it interrupts starts again (the runtime's handlers are SA_RESTART).
// The threads are those of /proc/self/task; one that ended meanwhile is
// skipped, and one that started since cannot be waiting in an earlier read.
func interruptThreads() error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	pid := unix.Getpid()
	sent := false
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		if unix.Tgkill(pid, tid, unix.SIGURG) == nil {
			sent = true
		}
	}
	if !sent {
		return errors.New("interrupt threads: none could be signalled")
	}
	return nil
}
