package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/notify"
)

// notifyPlaybook hands its one question over to a person.
const notifyPlaybook = `
version: 1
name: notify-e2e
spawn: {command: [%q, -q, "Overwrite config.yaml? [y/n] "]}
settings: {settle: 100ms}
timeouts: {prompt: 2s}
danger:
  - name: overwrite
    match: "Overwrite config.yaml?"
`

// TestRunNotifiesAQuestion: clai run passes the user config file's
// notification targets to the run: a real clai run reaches a danger rule's
// hand-over, the config file's command target is told of it as JSON, the
// run waits for an answer from elsewhere up to timeouts.prompt and exits 4,
// and clai run warns on stderr of a config file others may read. What the
// notifications say and when is tested in runner/humanloop.
func TestRunNotifiesAQuestion(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	prompter := testprog.Build(t, "prompter")
	dir := t.TempDir()
	pb := filepath.Join(dir, "notify.yaml")
	if err := os.WriteFile(pb, fmt.Appendf(nil, notifyPlaybook, prompter), 0o644); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "command.json")
	config := filepath.Join(dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("notify:\n  - command: [sh, -c, 'cat >> \"$0\"', %q]\n    on: [question]\n", got)
	// A config file others may read is warned of: it holds tokens.
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(config, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--quiet", "--log", filepath.Join(dir, "run.log"), pb)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_RUNTIME_DIR="+dir, "XDG_STATE_HOME="+dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 4 || !strings.Contains(stderr.String(), "within timeouts.prompt") {
		t.Errorf("exit %d, want 4 at the prompt's timeout; stderr:\n%s", code, stderr.String())
	}
	var n notify.Notification
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("the config file's command target got nothing: %v\n%s", err, stderr.String())
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&n); err != nil || n.Question == nil || n.Question.Text != "Overwrite config.yaml? [y/n]" {
		t.Errorf("the command target's JSON: %v\n%s", err, data)
	}
	if !strings.Contains(stderr.String(), "config.yaml may be read by other users (mode 0644)") {
		t.Errorf("no warning of the config file's mode:\n%s", stderr.String())
	}
}
