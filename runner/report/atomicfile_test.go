package report

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

// TestCheckWritableAtomic: the check before a run creates a missing folder,
// leaves what is at the path as it was and nothing beside it, and refuses a
// folder at the path and a parent that is a file.
func TestCheckWritableAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := checkWritableAtomic(filepath.Join(dir, "new", "sub", "r.json")); err != nil {
		t.Fatalf("missing folders: %v", err)
	}
	wantOnly(t, filepath.Join(dir, "new", "sub"))

	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkWritableAtomic(old); err != nil {
		t.Fatalf("an existing file: %v", err)
	}
	if got, _ := os.ReadFile(old); string(got) != "previous" {
		t.Errorf("the existing file became %q", got)
	}

	folder := filepath.Join(dir, "folder.json")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkWritableAtomic(folder); !errors.Is(err, syscall.EISDIR) || !strings.Contains(err.Error(), folder) {
		t.Errorf("a folder: %v, want is a directory, naming it", err)
	}
	if err := checkWritableAtomic(filepath.Join(old, "r.json")); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("under a file: %v, want not a directory", err)
	}
	wantOnly(t, dir, "folder.json", "new", "old.json")
}

// TestCheckWritableAtomicReadOnlyFolder: a folder where no file can be made
// is refused, naming the path and not the file the check tried beside it. An
// existing file there that can be written in place passes, as writeFileAtomic
// writes it in place.
func TestCheckWritableAtomicReadOnlyFolder(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes in a read-only folder")
	}
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.json")
	if err := os.WriteFile(kept, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	path := filepath.Join(dir, "r.json")
	err := checkWritableAtomic(path)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "open "+path+":") {
		t.Errorf("read-only folder: %v, want permission denied naming %s", err, path)
	}
	if err := checkWritableAtomic(kept); err != nil {
		t.Errorf("a writable file in a read-only folder: %v", err)
	}
}

// TestCheckWritableAtomicDevice: a path that is not a regular file (a device)
// is opened, not replaced, as writeFileAtomic writes it in place.
func TestCheckWritableAtomicDevice(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "r.json")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	if err := checkWritableAtomic(link); err != nil {
		t.Fatalf("a link to /dev/null: %v", err)
	}
	wantOnly(t, dir, "r.json")
}
