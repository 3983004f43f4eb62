package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOversizedRecordingRefused: clai lint, clai test and clai run --replay
// refuse a recording over the size bound at once, with an error that names
// the file, its size and the bound, instead of replaying it for minutes.
func TestOversizedRecordingRefused(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	castPath := filepath.Join(e.dir, "huge.cast")
	f, err := os.Create(castPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"version": 2, "width": 80, "height": 24}` + "\n"); err != nil {
		t.Fatal(err)
	}
	// 28 MiB, sparse: the bound is checked before anything is read.
	if err := f.Truncate(28 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	pb := filepath.Join(e.dir, "huge.yaml")
	if err := os.WriteFile(pb, []byte(`version: 1
name: huge
spawn: {command: [x]}
tests:
  - name: the huge recording
    cast: huge.cast
    expect: {state: done}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	say := castPath + ": the recording is 28.0 MiB (29360128 bytes), over the 8 MiB a recording may hold"
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"lint", pb}, 1},
		{[]string{"test", pb}, 1},
		{[]string{"run", "-q", "--replay", castPath, pb}, 2},
	} {
		stdout, stderr, code := e.clai(t, c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, say) {
			t.Errorf("clai %s: exit %d, want %d and %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), code, c.code, say, stdout, stderr)
		}
	}
}

// TestOversizedRecordingFromPipe: a recording whose size is not known
// beforehand (a named pipe) is replayed up to the bound, then refused with
// exit 2 and an error that names it and the bound.
func TestOversizedRecordingFromPipe(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	fifo := filepath.Join(e.dir, "endless.cast")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	pb := filepath.Join(e.dir, "endless.yaml")
	if err := os.WriteFile(pb, []byte("version: 1\nname: endless\nspawn: {command: [x]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	written := make(chan error, 1)
	go func() {
		// Opening a pipe's writing end waits for its reader: clai.
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			written <- err
			return
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, `{"version": 2, "width": 80, "height": 24}`)
		// Twice the bound, or until clai stops reading.
		line := strings.Repeat("working ", 4096/8)
		for i := 0; i < 2*(8<<20)/len(line); i++ {
			if _, err := fmt.Fprintf(w, "[%d, \"o\", \"%s\\r\\n\"]\n", i, line); err != nil {
				break
			}
		}
		_ = w.Flush()
		written <- nil
	}()
	_, stderr, code := e.clai(t, "run", "-q", "--replay", fifo, pb)
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if say := fifo + ": the recording is more than 8 MiB, over the 8 MiB a recording may hold"; code != 2 || !strings.Contains(stderr, say) {
		t.Fatalf("clai run --replay of an endless pipe: exit %d, want 2 and %q\n%s", code, say, stderr)
	}
}

// TestReplayReadsNoUserConfig: a replay reaches nobody, so a user config
// that does not load (or that names channels) does not stop it.
func TestReplayReadsNoUserConfig(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	config := filepath.Join(e.dir, "config", "clai")
	if err := os.MkdirAll(config, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(config, "config.yaml"): "notify: 3\n",
		filepath.Join(e.dir, "a.cast"):       "{\"version\": 2, \"width\": 80, \"height\": 24}\n[0.1, \"o\", \"Continue? [y/n] \"]\n[0.5, \"o\", \"y\\r\\nok\\r\\n\"]\n",
		filepath.Join(e.dir, "a.yaml"):       "version: 1\nname: a\nspawn: {command: [x]}\nrules:\n  - {name: go, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"))
	stdout, stderr, code := e.clai(t, "run", "-q", "--log", filepath.Join(e.dir, "a.log"), "--replay", filepath.Join(e.dir, "a.cast"), filepath.Join(e.dir, "a.yaml"))
	if code != 0 || strings.Contains(stderr, "config") {
		t.Fatalf("a replay with a user config that does not load: exit %d\n%s%s", code, stdout, stderr)
	}
}
