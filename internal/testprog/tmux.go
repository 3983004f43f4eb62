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
// tmux -L); the server is killed when the test ends. The test is skipped where tmux
// is not installed. Each call gets a new name: a server killed by an earlier run of
// the same test may still hold the old one.
func TmuxServer(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	sock := fmt.Sprintf("clai-test-%d-%d", os.Getpid(), tmuxServers.Add(1))
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	return sock
}
