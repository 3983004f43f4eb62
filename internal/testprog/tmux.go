package testprog

import (
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
)

var tmuxServers atomic.Int64

// TmuxServer gives a test a tmux server of its own and returns its socket name (for
// tmux -L); the server is killed when the test ends. tmux is a program of the e2e
// tier: RequireProgram says what happens where it is missing. Each call gets a new
// name: a server killed by an earlier run of the same test may still hold the old one.
func TmuxServer(t testing.TB) string {
	t.Helper()
	RequireProgram(t, "tmux", "tmux")
	sock := fmt.Sprintf("clai-test-%d-%d", os.Getpid(), tmuxServers.Add(1))
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	return sock
}
