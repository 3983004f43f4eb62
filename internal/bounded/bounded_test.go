package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := filepath.Join(dir, "at")
	over := filepath.Join(dir, "over")
	if err := os.WriteFile(at, []byte(strings.Repeat("x", 1024)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte(strings.Repeat("x", 1025)), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(at, 1024); err != nil || len(data) != 1024 {
		t.Fatalf("a file at the limit: %d bytes, %v", len(data), err)
	}
	_, err := ReadFile(over, 1024)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != over+": larger than 1 KiB" {
		t.Fatalf("a file over the limit: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 1024); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}

// A device that never ends is read up to the limit, then refused.
func TestReadFileEndlessDevice(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("/dev/zero")
	}
	_, err := ReadFile("/dev/zero", 1<<20)
	if err == nil || err.Error() != "/dev/zero: larger than 1 MiB" {
		t.Fatalf("got %v", err)
	}
}

func TestReadAll(t *testing.T) {
	t.Parallel()
	if data, err := ReadAll(strings.NewReader("abc"), 3); err != nil || string(data) != "abc" {
		t.Fatalf("got %q, %v", data, err)
	}
	if _, err := ReadAll(strings.NewReader("abcd"), 3); err == nil || err.Error() != "larger than 3 bytes" {
		t.Fatalf("got %v", err)
	}
}

func TestSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{1: "1 byte", 100: "100 bytes", 1024: "1 KiB", 1536: "1536 bytes", 64 << 10: "64 KiB", 1 << 20: "1 MiB", 3 << 30: "3 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	w := NewWriter(5)
	for _, p := range []string{"abc", "defg", "hij"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want all of it taken", p, n, err)
		}
	}
	if got := w.String(); got != "abcde" {
		t.Fatalf("kept %q, want the first 5 bytes", got)
	}
}
