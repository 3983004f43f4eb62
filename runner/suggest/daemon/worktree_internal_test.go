package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
)

// A git status slower than the wait leaves the ask without a work tree at
// once; the status runs on, and the next ask finds it kept.
func TestASlowStatusDoesNotHoldTheAsk(t *testing.T) {
	t.Parallel()
	realGit := testprog.RequireProgram(t, "git", "git")
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	if out, err := exec.CommandContext(t.Context(), realGit, "init", "-q", "-b", "slow", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	// A git that takes half a second to tell a status, as one of a big
	// repository does.
	slowGit := filepath.Join(dir, "git")
	script := "#!/bin/sh\ncase \"$*\" in *status*) sleep 0.5;; esac\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(slowGit, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := &statusCalls{git: gitctx.NewResolver(gitctx.WithGit(slowGit), gitctx.WithTTL(time.Hour)), wait: 10 * time.Millisecond, timeout: time.Minute}

	if _, ok := calls.status(t.Context(), root, true); ok {
		t.Fatal("a status slower than the wait was waited for")
	}
	// The same ask again joins the status still running, and has it once
	// git tells it.
	done := calls.group.DoChan("fresh\x00"+root, func() (any, error) {
		t.Error("the slow status does not run on: a second one started")
		return nil, nil
	})
	if r := <-done; r.Err != nil || r.Val.(gitctx.Status).Branch != "slow" {
		t.Fatalf("the slow status: %+v", r)
	}
	st, ok := calls.status(t.Context(), root, false)
	if !ok || st.Branch != "slow" {
		t.Fatalf("the next ask: %+v %v, want the status the slow one kept", st, ok)
	}
}
