// The program's terminal: its size, and the modes the program set on it,
// read through the master.

package pty

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/runner/driver"
)

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
