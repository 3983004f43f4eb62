package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// TestKilledClaiTakesItsProgram: clai killed with SIGKILL cannot end its
// program; the kernel does (the parent-death signal), even for a program that
// ignores the hangup of its terminal.
func TestKilledClaiTakesItsProgram(t *testing.T) {
	t.Parallel()
	clai := testprog.BuildCommand(t, "./cmd/clai")
	dir := t.TempDir()
	pb := filepath.Join(dir, "pb.yaml")
	err := os.WriteFile(pb, fmt.Appendf(nil, `version: 1
name: killed
spawn:
  shell: 'echo pid=$$; exec %s'
steps:
  - expect: never printed
`, testprog.Build(t, "stubborn")), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), clai, "run", "--log", filepath.Join(dir, "run.log"), pb)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "pid="); ok {
			pid, _ = strconv.Atoi(v)
		}
		if strings.TrimSpace(lines.Text()) == "ready" {
			break
		}
	}
	if pid == 0 {
		t.Fatalf("the program never said it was ready: %v", lines.Err())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the program (pid %d) outlived clai's SIGKILL", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && syscall.Kill(pid, 0) == nil
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || len(b) <= i+2 || b[i+2] != 'Z'
}
