// Package golden compares what a test produced with the file that holds what it
// should be, and rewrites that file instead when the test runs with -update
// (make update-golden runs every package that imports it that way).
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (and the CLI scripts' expected output) instead of comparing with them")

// Update reports whether the test binary runs with -update: golden files are
// rewritten, not compared.
func Update() bool { return *update }

// Check compares got with the golden file at path; with -update it writes got
// to path instead, making its folder if needed. The file's CRLF line ends, as a
// checkout may make them, read as LF.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := write(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run make update-golden to create it)", err)
	}
	if w := strings.ReplaceAll(string(want), "\r\n", "\n"); got != w {
		t.Errorf("the output differs from %s (run make update-golden and review the diff):%s", path, Diff(w, got))
	}
}

// write writes got to path, making its folder.
func write(path, got string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	return nil
}

// Diff describes the first lines, up to five, where got differs from want,
// each quoted, so that a difference in blanks or control characters shows.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 5; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			shown++
			fmt.Fprintf(&b, "\n  line %d:\n    got  %q\n    want %q", i+1, gl, wl)
		}
	}
	if shown == 0 {
		return "(they differ only in line ends)"
	}
	return b.String()
}
