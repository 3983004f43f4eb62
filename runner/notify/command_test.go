package notify_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/notify"
)

// TestCommandTargetEnvironment: a command target's program is not given
// the variables behind secrets, nor those whose names look like
// credentials', unless its env: names them; the rest of the environment it
// gets as it is.
func TestCommandTargetEnvironment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "env")
	s := spec(playbooks.NotifyCommand)
	s.Command = []string{"/bin/sh", "-c", `env > "$0"`, out}
	s.PassEnv = []string{"PAGER_TOKEN"}
	env := notify.Environment{
		Environ: []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOOK_SECRET=s3cret-hook", "TOPIC=alerts",
			"GITHUB_TOKEN=ghp_x", "PAGER_TOKEN=pager-1"},
		Secrets: []string{"HOOK_SECRET", "TOPIC"},
	}
	target, err := notify.Open(s, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := target.Deliver(t.Context(), &notify.Notification{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, gone := range []string{"HOOK_SECRET", "TOPIC", "GITHUB_TOKEN"} {
		if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, gone+"=") }) {
			t.Errorf("the command target's program sees %s:\n%s", gone, data)
		}
	}
	for _, kept := range []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "PAGER_TOKEN=pager-1"} {
		if !slices.Contains(got, kept) {
			t.Errorf("the command target's program does not see %s:\n%s", kept, data)
		}
	}
}
