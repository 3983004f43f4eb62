//go:build !linux

package pty

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited cannot wait without reaping here; the caller reaps directly.
func waitExited(int) bool { return false }

func termEcho(int) (bool, error) { return false, errors.ErrUnsupported }

func termLineMode(int) (bool, error) { return false, errors.ErrUnsupported }

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
