//go:build unix

// Package procgroup starts a command in a process group of its own, so that
// cancelling it ends whatever it started too.
package procgroup

import (
	"os/exec"
	"syscall"
)

// Own starts cmd in a process group of its own, which its cancel kills
// whole: a command that hangs takes what it started with it.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
