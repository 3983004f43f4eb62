package sessions

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/runner/ask"
)

func TestListAsksEachSession(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	register(t, r, newFakeDesk("one"))
	gone := register(t, r, newFakeDesk("two"))
	found, err := r.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || found[0].Err != nil || found[1].Err != nil {
		t.Fatalf("found %+v, want two sessions that answered", found)
	}
	if err := gone.Close(); err != nil {
		t.Fatal(err)
	}
	found, err = r.List(t.Context())
	if err != nil || len(found) != 1 || found[0].Session.Name != "one" {
		t.Fatalf("after one closed: %+v, %v", found, err)
	}
	entries, _ := os.ReadDir(r.Dir())
	if names := dirNames(entries); len(names) != 2 {
		t.Fatalf("the folder holds %v, want one entry and its socket", names)
	}
}

func TestListOnlyAsksTheSessionsItKeeps(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	one, two := newFakeDesk("one"), newFakeDesk("two")
	register(t, r, one)
	register(t, r, two)
	before := two.sessionCalls()
	found, err := r.ListOnly(t.Context(), func(s ask.Session) bool { return s.Name == "one" })
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Err != nil || found[0].Session.Name != "one" {
		t.Fatalf("found %+v, want session one, which answered", found)
	}
	if calls := two.sessionCalls() - before; calls != 0 {
		t.Fatalf("session two was asked %d times, want 0: it was left out", calls)
	}
}

// TestRegisteredAsksNoSession: Registered finds a session by its entry
// alone, with its socket, and asks it nothing (clai answer ID --question Q
// goes straight to the answer).
func TestRegisteredAsksNoSession(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	one, two := newFakeDesk("one"), newFakeDesk("two")
	e := register(t, r, one)
	register(t, r, two)
	before := one.sessionCalls()
	found, err := r.Registered(func(s ask.Session) bool { return s.ID == "s-one" })
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Session.Name != "one" || found[0].Socket != e.Socket() {
		t.Fatalf("found %+v, want session one at %s", found, e.Socket())
	}
	if calls := one.sessionCalls() - before; calls != 0 {
		t.Fatalf("session one was asked %d times, want 0", calls)
	}
}

func TestReadersDoNotWaitForEachOther(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	register(t, r, newFakeDesk("one"))
	// Another reader holds the registry's lock while it lists.
	other, err := os.Open(filepath.Join(r.Dir(), lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Flock(int(other.Fd()), unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	found, err := r.List(t.Context())
	if err != nil || len(found) != 1 || found[0].Err != nil {
		t.Fatalf("listed %+v, %v while another reader lists, want the one session", found, err)
	}
}

func dirNames(entries []os.DirEntry) []string {
	var names []string
	for _, e := range entries {
		if e.Name() != lockName {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestHelperRegisters is not a test: run by TestKilledRunIsCleaned as a
// process of its own, it registers a session in the folder it is given and
// waits to be killed.
func TestHelperRegisters(t *testing.T) {
	dir := os.Getenv("CLAI_SESSIONS_HELPER_DIR")
	if dir == "" {
		t.Skip("a helper process of TestKilledRunIsCleaned")
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.Register(newFakeDesk("killed"), nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("registered " + e.Socket() + "\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
}

// TestKilledRunIsCleaned: the entry of a run killed with SIGKILL, which
// removed nothing, is removed by the next reader.
func TestKilledRunIsCleaned(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRegisters$")
	cmd.Env = append(os.Environ(), "CLAI_SESSIONS_HELPER_DIR="+r.Dir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "registered ") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the helper said %q, %v", line, err)
	}
	socket := strings.TrimSpace(strings.TrimPrefix(line, "registered "))
	found, err := r.List(t.Context())
	if err != nil || len(found) != 1 || found[0].Err != nil || found[0].Session.Name != "killed" {
		t.Fatalf("while it runs: %+v, %v", found, err)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("the killed run's socket should still be there for the reader to clean: %v", err)
	}
	found, err = r.List(t.Context())
	if err != nil || len(found) != 0 {
		t.Fatalf("after the kill: %+v, %v, want no session", found, err)
	}
	entries, _ := os.ReadDir(r.Dir())
	if names := dirNames(entries); len(names) != 0 {
		t.Fatalf("the killed run left %v", names)
	}
}

// TestFolderChecks: Open refuses a folder rundir refuses (its own tests go
// through every check), and one too long for a socket's path.
func TestFolderChecks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	open := func(t *testing.T, dir, want string) {
		t.Helper()
		_, err := Open(dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Open(%s) = %v, want an error saying %q", dir, err, want)
		}
	}
	t.Run("mode", func(t *testing.T) {
		dir := filepath.Join(base, "open")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		open(t, dir, "has mode 0755, want 0700")
	})
	t.Run("too long for a socket", func(t *testing.T) {
		dir := base
		for len(dir) < maxSocketPath {
			dir = filepath.Join(dir, strings.Repeat("d", 20))
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			t.Fatal(err)
		}
		open(t, dir, "set XDG_RUNTIME_DIR to a shorter folder")
	})
}
