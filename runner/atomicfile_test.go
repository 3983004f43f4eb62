package runner

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFileAtomicFailureKeepsTheOldFile: a write that fails halfway leaves
// the previous file as it was and nothing beside it.
func TestWriteFileAtomicFailureKeepsTheOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte(`{"previous": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	err := writeFileAtomic(path, func(w io.Writer) error {
		if _, err := w.Write([]byte(`{"half": `)); err != nil {
			return err
		}
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("err = %v, want the writer's", err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"previous": true}` {
		t.Errorf("the previous file became %q", got)
	}
	wantOnly(t, dir, "r.json")
}

// TestWriteFileAtomicToAFolder: a path that cannot be replaced (a folder)
// leaves no file beside it.
func TestWriteFileAtomicToAFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(path, writeText("{}")); err == nil {
		t.Fatal("a folder was replaced by a file")
	}
	wantOnly(t, dir, "r.json")
}

// TestWriteFileAtomicMode: the file gets 0644 less the umask, as a new file
// does, whatever mode the file it replaces had.
func TestWriteFileAtomicMode(t *testing.T) {
	t.Parallel()
	umask, ok := processUmask()
	if !ok {
		t.Skip("no Umask line in /proc/self/status")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "r.md")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(path, writeText("new")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fs.FileMode(0o644) &^ umask; st.Mode().Perm() != want {
		t.Errorf("mode %v, want %v", st.Mode().Perm(), want)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("content %q", got)
	}
	wantOnly(t, dir, "r.md")
}

// TestWriteFileAtomicThroughLink: a link is followed, not replaced.
func TestWriteFileAtomicThroughLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(link, writeText("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "new" {
		t.Errorf("target holds %q", got)
	}
}

func writeText(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// wantOnly fails unless dir holds exactly the named entries.
func wantOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("the folder holds %q, want %q", got, names)
	}
}

// processUmask reads the umask from /proc, without setting it (which would
// race with the other tests creating files).
func processUmask() (fs.FileMode, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("Umask:")); ok {
			m, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32)
			return fs.FileMode(m), err == nil
		}
	}
	return 0, false
}

// TestWriteFileAtomicToAPipe: what cannot be replaced by a file (a named pipe)
// is written in place.
func TestWriteFileAtomicToAPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	// A reader, so that the writer's open does not wait; non-blocking, so
	// that reading a pipe nobody wrote to ends.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := writeFileAtomic(path, writeText("{}")); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); string(b) != "{}" {
		t.Errorf("read %q from the pipe (%v)", b, err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi, err)
	}
	wantOnly(t, dir, "r.json")
}
