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
		t.Errorf("the output differs from %s (run make update-golden and review the diff)\n%s", path, firstDiff(w, got))
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

// firstDiff shows the first line where got differs from want.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant: %s\n got: %s", i+1, wl, gl)
		}
	}
	return "(they differ only in line ends)"
}
