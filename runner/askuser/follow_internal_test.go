package askuser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The follower hands on whole lines only, skips a line longer than MaxLine
// without holding it, and reads a transcript that shrank from its start.
func TestFollowerBounds(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	write := func(s string, flag int) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	f := &follower{path: path}
	var lines []string
	read := func() {
		t.Helper()
		if err := f.read(func(l []byte) { lines = append(lines, string(l)) }); err != nil {
			t.Fatal(err)
		}
	}
	write("one\ntw", os.O_APPEND)
	read()
	write("o\n\n"+strings.Repeat("z", MaxLine+10), os.O_APPEND)
	read()
	if len(f.partial) > 0 || !f.skipping {
		t.Fatalf("a long line is held: %d bytes, skipping %v", len(f.partial), f.skipping)
	}
	write(strings.Repeat("z", 100)+"\nthree\n", os.O_APPEND)
	read()
	if strings.Join(lines, "|") != "one|two|three" {
		t.Fatalf("lines %q", lines)
	}
	write("four\n", os.O_TRUNC)
	read()
	if lines[len(lines)-1] != "four" {
		t.Fatalf("after a rewrite: %q", lines)
	}
	os.Remove(path)
	if err := f.read(func([]byte) {}); err != errGone {
		t.Fatalf("gone: %v", err)
	}
}
