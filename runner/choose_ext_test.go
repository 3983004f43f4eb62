package runner_test

import (
	"os"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/playtest"
)

// TestCreateViteExampleTests runs the tests of examples/create-vite.yaml, among them
// the replay of the recorded create-vite 9.3.0 session, where every menu is a
// @clack/prompts one.
func TestCreateViteExampleTests(t *testing.T) {
	t.Parallel()
	if passExampleTests(t, "../examples/create-vite.yaml") == 0 {
		t.Fatal("the example has no tests")
	}
}

// TestDialogMenuExampleTests runs the tests of examples/dialog-menu.yaml: the
// replays of clai driving dialog and whiptail, whose menus mark the current
// option by its colours alone.
func TestDialogMenuExampleTests(t *testing.T) {
	t.Parallel()
	if n := passExampleTests(t, "../examples/dialog-menu.yaml"); n != 2 {
		t.Fatalf("%d tests, want the replays of dialog and whiptail", n)
	}
}

// passExampleTests runs the tests of the playbook at path, fails t for each that
// does not pass, and returns how many there were.
func passExampleTests(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pb, findings := playbooks.Parse(path, data)
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	results := playtest.RunTests(t.Context(), pb)
	for _, r := range results {
		if !r.Passed() {
			t.Errorf("test %q: %s", r.Test.Name, strings.Join(r.Failures, "; "))
		}
	}
	return len(results)
}
