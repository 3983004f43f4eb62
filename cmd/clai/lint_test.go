package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/golden"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/files"
)

// TestLintGolden lints each fixture in testdata/lint and compares the text output,
// its closing count included, with its .golden file. Every check of the catalogue must have a fixture that
// triggers it.
func TestLintGolden(t *testing.T) {
	t.Parallel()
	fixtures, err := filepath.Glob("../../testdata/lint/*.yaml")
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range fixtures {
		res := lintPaths([]string{path})
		for _, f := range res.Findings {
			seen[f.Rule] = true
		}
		var out bytes.Buffer
		if err := writeLint(&out, &out, "text", res, nil, ""); err != nil {
			t.Fatal(err)
		}
		// Golden files hold paths relative to the repository root.
		got := strings.ReplaceAll(out.String(), "../../testdata/", "testdata/")
		golden.Check(t, strings.TrimSuffix(path, ".yaml")+".golden", got)
	}
	for _, r := range diag.Rules() {
		if r.ID != "io" && !seen[r.ID] {
			t.Errorf("no fixture in testdata/lint triggers check %q", r.ID)
		}
	}
}

func TestLintMissingAndEmpty(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	res := files.Lint([]string{"../../testdata/lint/does-not-exist.yaml", empty})
	if len(res.Findings) != 2 {
		t.Fatalf("want 2 findings, got %v", res.Findings)
	}
	for _, f := range res.Findings {
		if f.Rule != "io" || f.Severity != diag.Error {
			t.Errorf("want an io error, got %v", f)
		}
	}
}

func TestLintFolderFindsEveryPlaybook(t *testing.T) {
	t.Parallel()
	res := files.Lint([]string{"../../testdata/lint"})
	fixtures, _ := filepath.Glob("../../testdata/lint/*.yaml")
	if len(res.Files) != len(fixtures) {
		t.Fatalf("linted %d files, want %d", len(res.Files), len(fixtures))
	}
}
