package main

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// startDashboard starts clai dashboard and returns the URL it printed.
func (e *sessionsEnv) startDashboard(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(e.bin, "dashboard")
	cmd.Env = e.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("clai dashboard printed no URL: %v\n%s", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "clai dashboard: ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("clai dashboard printed %q", line)
	}
	return url
}
