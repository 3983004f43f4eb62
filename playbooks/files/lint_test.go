package files_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/clai-sh/clai/playbooks/files"
)

func TestLintStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("version: 1\nname: x\nspawn: {command: [x]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res := files.LintContext(t.Context(), []string{dir}); len(res.Files) != 2 {
		t.Fatalf("linted %v", res.Files)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if res := files.LintContext(ctx, []string{dir, filepath.Join(dir, "a.yaml")}); len(res.Files) != 0 || len(res.Findings) != 0 {
		t.Fatalf("after the context ended: files %v, findings %v", res.Files, res.Findings)
	}
}
