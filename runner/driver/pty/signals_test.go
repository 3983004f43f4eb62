package pty_test

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
)

const ignoringEnv = "CLAI_PTY_TEST_IGNORING"

// TestCtrlCWhenClaiIgnoresSIGINT runs itself again in a process started with
// SIGINT and SIGHUP ignored, as nohup or a background job of a script does:
// the program must still be interrupted by Ctrl-C, and clai must still
// ignore SIGINT afterwards.
func TestCtrlCWhenClaiIgnoresSIGINT(t *testing.T) {
	if os.Getenv(ignoringEnv) == "" {
		t.Parallel()
		sh, err := exec.LookPath("sh")
		if err != nil {
			t.Skip("no sh to start a process with SIGINT ignored")
		}
		testprog.Build(t, "silent") // fail here, not in the child, if it does not build
		cmd := exec.CommandContext(t.Context(), sh, "-c", `trap "" INT HUP; exec "$0" -test.run='^TestCtrlCWhenClaiIgnoresSIGINT$' -test.count=1 -test.v`, os.Args[0])
		cmd.Env = append(os.Environ(), ignoringEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestCtrlCWhenClaiIgnoresSIGINT")) {
			t.Fatalf("child test: %v\n%s", err, out)
		}
		return
	}

	if !ignored(t, syscall.SIGINT) {
		t.Fatal("started without SIGINT ignored")
	}
	c := start(t, pty.Options{Argv: []string{testprog.Build(t, "silent")}})
	c.expect("ready")
	c.send("\x03")
	want := driver.ExitStatus{Code: 128 + 2, Signal: "interrupt"}
	if st := c.wait(); st != want {
		t.Errorf("exit status = %v, want %v", st, want)
	}
	if !ignored(t, syscall.SIGINT) || !ignored(t, syscall.SIGHUP) {
		t.Error("Start changed clai's own ignored signals")
	}
}

// ignored reads whether sig is ignored from /proc/self/status.
func ignored(t *testing.T, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for line := range bytes.Lines(b) {
		if hex, ok := bytes.CutPrefix(line, []byte("SigIgn:")); ok {
			mask, err := strconv.ParseUint(string(bytes.TrimSpace(hex)), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Skip("no SigIgn in /proc/self/status")
	return false
}
