package answerer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/answerer"
)

// script writes a shell script that acts as a model command.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

func TestCommandModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got := filepath.Join(dir, "request.json")
	m := &answerer.Command{Argv: []string{script(t, `cat > "$1"; echo '{"answer": "Y", "confidence": 0.97, "reason": "safe"}'`), got}}
	r, err := m.Ask(t.Context(), answerer.Request{Question: "Continue? [Y/n]", Options: []string{"Y", "n"}, Playbook: answerer.Playbook{Name: "p"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Answer != "Y" || r.Confidence != 0.97 {
		t.Errorf("reply %+v", r)
	}
	var req answerer.Request
	data, _ := os.ReadFile(got)
	if err := json.Unmarshal(data, &req); err != nil || req.Question != "Continue? [Y/n]" || req.Playbook.Name != "p" {
		t.Errorf("the command read %s (%v)", data, err)
	}
}

func TestCommandModelFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, want string }{
		{"garbage", `echo 'beep boop'`, "no JSON object"},
		{"an exit status", `echo 'quota exceeded' >&2; exit 3`, "exit status 3: quota exceeded"},
		{"a flood", `yes '{{{{'`, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := &answerer.Command{Argv: []string{script(t, tc.body)}}
			_, err := m.Ask(t.Context(), answerer.Request{Question: "Continue?"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// A command that hangs is killed with what it started when its time is up:
// the call returns although a grandchild holds its stdout.
func TestCommandModelThatHangsIsKilled(t *testing.T) {
	t.Parallel()
	m := &answerer.Command{Argv: []string{script(t, `sleep 600 & sleep 600`)}}
	ctx, cancel := contextWithTimeout(t, 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := m.Ask(ctx, answerer.Request{Question: "Continue?"}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Errorf("error %v, want killed", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call of a hanging command did not end")
	}
}
