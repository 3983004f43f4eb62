//go:build unix

package answerer

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, which its cancel kills
// whole: a model command that hangs takes what it started with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
