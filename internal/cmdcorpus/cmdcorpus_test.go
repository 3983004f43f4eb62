package cmdcorpus

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.txt")
	if err := os.WriteFile(path, []byte("# a note\nls -l\nq:\"for f in *; do\\n  echo $f\\ndone\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if want := []string{"ls -l", "for f in *; do\n  echo $f\ndone"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("Read = %q, %v; want %q", got, err, want)
	}
	if err := os.WriteFile(path, []byte("q:\"open\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "c.txt:1") {
		t.Fatalf("a bad quoted line: %v", err)
	}
}
