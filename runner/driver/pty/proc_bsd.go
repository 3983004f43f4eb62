// Processes and terminals on macOS and the BSDs. Provides the same functions
// as proc_linux.go (see platform.go): waitExited, termEcho, termLineMode,
// ignoredSignals, openTerminal, openPeer, wakeWriters and interruptThreads. What differs from
// Linux:
//   - the program is reaped directly: these systems cannot wait for a process
//     without reaping it (waitid's WNOWAIT), so the PID is not held reserved
//     between its exit and the reaping (see Process.recycled);
//   - the terminal's modes are read through the master (TIOCGETA), as on
//     Linux; the master and the terminal share them there too;
//   - ignored signals are found with signal.Ignored, there is no /proc; it
//     no longer sees a SIG_IGN once a signal.Notify for that signal was
//     stopped, so when clai itself runs with SIGINT or SIGHUP ignored (nohup)
//     only the first program it starts surely gets them back at the default;
//   - the terminal is opened by the name the master gives (no TIOCGPTPEER);
//   - a write waiting for room is woken with TIOCSTOP and TIOCSTART, the
//     ioctls behind tcflow(TCOOFF) and tcflow(TCOON) there;
//   - the threads of this process cannot be listed to interrupt a read
//     waiting in the kernel (interruptThreads reports
//     errors.ErrUnsupported): a byte written to the terminal wakes it, the
//     wake of last resort (see Process.wakeByByte).

//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package pty

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited cannot wait without reaping here; the caller reaps directly.
func waitExited(int) bool { return false }

// termEcho reports whether the terminal behind fd echoes input.
func termEcho(fd int) (bool, error) {
	t, err := unix.IoctlGetTermios(fd, unix.TIOCGETA)
	if err != nil {
		return false, err
	}
	return t.Lflag&unix.ECHO != 0, nil
}

// termLineMode reports whether the terminal behind fd reads whole lines.
func termLineMode(fd int) (bool, error) {
	t, err := unix.IoctlGetTermios(fd, unix.TIOCGETA)
	if err != nil {
		return false, err
	}
	return t.Lflag&unix.ICANON != 0, nil
}

func ignoredSignals(sigs ...syscall.Signal) []os.Signal { return ignoredSignalsPortable(sigs...) }

// openTerminal opens a pseudo-terminal by name (see openTerminalByPath).
func openTerminal() (int, *os.File, error) { return openTerminalByPath() }

// openPeer opens the terminal by name, for writing (see Process.wakeReader).
func openPeer(_ int, name string) (int, error) {
	return unix.Open(name, unix.O_WRONLY|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
}

// wakeWriters wakes every write(2) waiting on master for room, by stopping the
// master's output and starting it again (see the Linux version).
func wakeWriters(master int) error {
	if err := unix.IoctlSetInt(master, unix.TIOCSTOP, 0); err != nil {
		return err
	}
	return unix.IoctlSetInt(master, unix.TIOCSTART, 0)
}

// interruptThreads cannot list this process's threads here: see the file's
// comment.
func interruptThreads() error { return errors.ErrUnsupported }
