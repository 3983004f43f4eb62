package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/hookproto/hooktest"
)

// daemon starts a stand-in daemon on a socket in a folder of the test's own.
func daemon(t *testing.T, assign func(hookproto.Event) string) *hooktest.Server {
	t.Helper()
	s, err := hooktest.Start(filepath.Join(t.TempDir(), "d.sock"), assign)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// hookRun runs the built clai-hook with args, env (on top of a clean one) and
// stdin, in dir; it returns stdout, stderr and the exit code.
func hookRun(t *testing.T, dir, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), testprog.BuildCommand(t, "./cmd/clai-hook"), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + t.TempDir()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// waitEvents waits for n events at s.
func waitEvents(t *testing.T, s *hooktest.Server, n int) []hookproto.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	events, err := s.WaitFor(ctx, func(e []hookproto.Event) bool { return len(e) >= n })
	if err != nil {
		t.Fatalf("%v: got %+v, bad %q", err, events, s.Bad())
	}
	return events
}

func TestIngest(t *testing.T) {
	t.Parallel()
	s := daemon(t, nil)
	dir := t.TempDir()
	cmd := "printf '%s\\n' \"a \\\"b\\\" 'c'\" | grep -c é\necho \xff\xfedone"
	_, stderr, code := hookRun(t, dir, "", []string{
		"CLAI_DAEMON_SOCKET=" + s.Socket, "CLAI_HOOK_CMD=" + cmd, "CLAI_HOOK_EXIT=3", "CLAI_HOOK_DURATION_MS=125",
		"CLAI_HOOK_SHELL=bash", "CLAI_HOOK_PID=4242", "CLAI_SESSION_ID=s-1", "CLAI_HOOK_TS_MS=1700000000123",
	}, "ingest")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := waitEvents(t, s, 1)[0]
	want := hookproto.Event{V: 1, Type: hookproto.TypeCommand, Session: "s-1", Shell: "bash", PID: 4242, TSMillis: 1700000000123,
		Cwd: dir, Cmd: hookproto.Lossy(cmd), Exit: 3, DurationMS: 125}
	if got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestIngestStdin(t *testing.T) {
	t.Parallel()
	s := daemon(t, nil)
	long := "echo " + strings.Repeat("ü", 50<<10) + "\n"
	_, stderr, code := hookRun(t, t.TempDir(), long+"\n", []string{
		"CLAI_DAEMON_SOCKET=" + s.Socket, "CLAI_HOOK_EXIT=0", "CLAI_HOOK_DURATION_MS=", "CLAI_HOOK_CMD=ignored",
	}, "ingest", "-stdin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := waitEvents(t, s, 1)[0]
	// Without CLAI_HOOK_TS_MS, the time is clai-hook's.
	if age := time.Since(time.UnixMilli(got.TSMillis)); age < 0 || age > time.Hour {
		t.Errorf("ts_ms %d is not now", got.TSMillis)
	}
	// One closing newline goes (the shell's here-string adds it); the command's own stays.
	if got.Cmd != long || got.DurationMS != hookproto.UnknownDuration {
		t.Fatalf("got a command of %d bytes ending %q, duration %d", len(got.Cmd), got.Cmd[len(got.Cmd)-3:], got.DurationMS)
	}
}

func TestIngestSkips(t *testing.T) {
	t.Parallel()
	s := daemon(t, nil)
	env := []string{"CLAI_DAEMON_SOCKET=" + s.Socket}
	if _, stderr, code := hookRun(t, t.TempDir(), " \t\n\n", env, "ingest", "-stdin"); code != 0 {
		t.Fatalf("a blank command: exit %d: %s", code, stderr)
	}
	_, stderr, code := hookRun(t, t.TempDir(), strings.Repeat("x", hookproto.MaxLine+10), env, "ingest", "-stdin")
	if code != 1 || !strings.Contains(stderr, "is not sent") {
		t.Fatalf("a command too long: exit %d: %s", code, stderr)
	}
	// The server hears only what is sent after.
	if _, stderr, code := hookRun(t, t.TempDir(), "", append(env, "CLAI_HOOK_CMD=after"), "ingest"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if cmds := hooktest.Commands(waitEvents(t, s, 1)); len(cmds) != 1 || cmds[0] != "after" {
		t.Fatalf("got %q", cmds)
	}
}

func TestDaemonAway(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, stderr, code := hookRun(t, dir, "", []string{"CLAI_DAEMON_SOCKET=" + filepath.Join(dir, "none.sock"), "CLAI_HOOK_CMD=ls"}, "ingest")
	if code != 1 || !strings.Contains(stderr, "none.sock") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Without CLAI_DAEMON_SOCKET, the runtime folder does not exist: nothing is made.
	runtime := t.TempDir()
	cmd := exec.CommandContext(t.Context(), testprog.BuildCommand(t, "./cmd/clai-hook"), "ingest")
	cmd.Env = []string{"XDG_RUNTIME_DIR=" + runtime, "CLAI_HOOK_CMD=ls"}
	if err := cmd.Run(); err == nil {
		t.Fatal("no error without a daemon")
	}
	if entries, _ := os.ReadDir(runtime); len(entries) != 0 {
		t.Fatalf("clai-hook made %v", entries)
	}
}

func TestSessionStart(t *testing.T) {
	t.Parallel()
	local := regexp.MustCompile(`^l-777-[0-9a-f]{16}$`)
	env := []string{"CLAI_HOOK_SHELL=zsh", "CLAI_HOOK_PID=777"}
	// printed checks what session-start printed: the session id, which
	// want matches, then the socket and the spool file of the session.
	printed := func(t *testing.T, out, socket string, want *regexp.Regexp) string {
		t.Helper()
		lines := strings.SplitAfter(out, "\n")
		id := strings.TrimSuffix(lines[0], "\n")
		spool := filepath.Join(filepath.Dir(socket), hookproto.SpoolFolder, id)
		if len(lines) != 4 || !want.MatchString(id) || lines[1] != socket+"\n" || lines[2] != spool+"\n" {
			t.Fatalf("printed %q, want a session id that matches %s, then %s and %s", out, want, socket, spool)
		}
		return id
	}
	t.Run("assigned by the daemon", func(t *testing.T) {
		t.Parallel()
		s := daemon(t, func(e hookproto.Event) string { return "d-" + strconv.Itoa(e.PID) })
		// In process, to wait for the session file as long as it takes: the
		// time the daemon has is no part of what is tested.
		h := hook{
			getenv: func(k string) string {
				return map[string]string{"CLAI_HOOK_SHELL": "zsh", "CLAI_HOOK_PID": "777"}[k]
			},
			now:         time.Now,
			transport:   func() (hookproto.Transport, error) { return hookproto.UnixSocket{Path: s.Socket}, nil },
			sessionWait: time.Minute,
		}
		var out bytes.Buffer
		if err := h.sessionStart(&out); err != nil {
			t.Fatal(err)
		}
		printed(t, out.String(), s.Socket, regexp.MustCompile(`^d-777$`))
		e := waitEvents(t, s, 1)[0]
		if e.Type != hookproto.TypeSessionStart || e.Shell != "zsh" || e.PID != 777 || !local.MatchString(e.Session) {
			t.Fatalf("got %+v", e)
		}
	})
	t.Run("a session file just written", func(t *testing.T) {
		t.Parallel()
		s := daemon(t, nil)
		if err := hookproto.WriteSessionFile(filepath.Dir(s.Socket), 777, "d-pre"); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := hookRun(t, t.TempDir(), "", append(env, "CLAI_DAEMON_SOCKET="+s.Socket), "session-start")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		printed(t, out, s.Socket, regexp.MustCompile(`^d-pre$`))
	})
	t.Run("a stale session file", func(t *testing.T) {
		t.Parallel()
		s := daemon(t, nil)
		if err := hookproto.WriteSessionFile(filepath.Dir(s.Socket), 777, "d-old"); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Minute)
		if err := os.Chtimes(hookproto.SessionFile(filepath.Dir(s.Socket), 777), old, old); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := hookRun(t, t.TempDir(), "", append(env, "CLAI_DAEMON_SOCKET="+s.Socket), "session-start")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		printed(t, out, s.Socket, local)
	})
	t.Run("daemon assigns none", func(t *testing.T) {
		t.Parallel()
		s := daemon(t, nil)
		out, stderr, code := hookRun(t, t.TempDir(), "", append(env, "CLAI_DAEMON_SOCKET="+s.Socket), "session-start")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		id := printed(t, out, s.Socket, local)
		if e := waitEvents(t, s, 1)[0]; e.Session != id {
			t.Fatalf("the daemon was told of session %q, the shell keeps %q", e.Session, id)
		}
	})
	t.Run("daemon away", func(t *testing.T) {
		t.Parallel()
		socket := filepath.Join(t.TempDir(), "d.sock")
		out, stderr, code := hookRun(t, t.TempDir(), "", append(env, "CLAI_DAEMON_SOCKET="+socket), "session-start")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		printed(t, out, socket, local)
		// The spool's folder is made, for the user alone.
		if fi, err := os.Lstat(filepath.Join(filepath.Dir(socket), hookproto.SpoolFolder)); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("the spool folder: %v %v", fi, err)
		}
	})
	t.Run("a socket named from the working folder", func(t *testing.T) {
		t.Parallel()
		cwd := t.TempDir()
		out, stderr, code := hookRun(t, cwd, "", append(env, "CLAI_DAEMON_SOCKET=d.sock"), "session-start")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		printed(t, out, filepath.Join(cwd, "d.sock"), local)
	})
	t.Run("a runtime folder no daemon made yet", func(t *testing.T) {
		t.Parallel()
		xdg := t.TempDir()
		out, stderr, code := hookRun(t, t.TempDir(), "", append(env, "XDG_RUNTIME_DIR="+xdg), "session-start")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		printed(t, out, filepath.Join(xdg, "clai", "daemon.sock"), local)
	})
	idAlone := func(t *testing.T, extra ...string) {
		t.Helper()
		out, stderr, code := hookRun(t, t.TempDir(), "", append(env, extra...), "session-start")
		if id, ok := strings.CutSuffix(out, "\n"); code != 0 || !ok || !local.MatchString(id) {
			t.Fatalf("exit %d, printed %q, want the session id alone: %s", code, out, stderr)
		}
	}
	t.Run("a socket whose path would not fit on a line", func(t *testing.T) {
		t.Parallel()
		idAlone(t, "CLAI_DAEMON_SOCKET="+filepath.Join(t.TempDir(), "a\nb.sock"))
	})
	t.Run("a socket in a folder that is not there", func(t *testing.T) {
		t.Parallel()
		idAlone(t, "CLAI_DAEMON_SOCKET="+filepath.Join(t.TempDir(), "gone", "d.sock"))
	})
	t.Run("a spool folder others may enter", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, hookproto.SpoolFolder), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, hookproto.SpoolFolder), 0o755); err != nil {
			t.Fatal(err)
		}
		idAlone(t, "CLAI_DAEMON_SOCKET="+filepath.Join(dir, "d.sock"))
	})
	t.Run("a spool folder that is a link", func(t *testing.T) {
		t.Parallel()
		dir, elsewhere := t.TempDir(), t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(dir, hookproto.SpoolFolder)); err != nil {
			t.Fatal(err)
		}
		idAlone(t, "CLAI_DAEMON_SOCKET="+filepath.Join(dir, "d.sock"))
	})
}

func TestSessionEnd(t *testing.T) {
	t.Parallel()
	s := daemon(t, nil)
	if _, stderr, code := hookRun(t, t.TempDir(), "", []string{"CLAI_DAEMON_SOCKET=" + s.Socket, "CLAI_SESSION_ID=x", "CLAI_HOOK_PID=5"}, "session-end"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if e := waitEvents(t, s, 1)[0]; e.Type != hookproto.TypeSessionEnd || e.Session != "x" || e.PID != 5 {
		t.Fatalf("got %+v", e)
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"ingest", "ls -l"}, {"nap"}, {"session-start", "x"}} {
		_, stderr, code := hookRun(t, t.TempDir(), "", nil, args...)
		if code != 1 || !strings.Contains(stderr, "clai-hook") {
			t.Errorf("clai-hook %q: exit %d: %s", args, code, stderr)
		}
	}
}

func TestIngestWaitReportsADrop(t *testing.T) {
	t.Parallel()
	s := daemon(t, nil)
	env := []string{"CLAI_DAEMON_SOCKET=" + s.Socket, "CLAI_HOOK_CMD=make test"}
	if _, stderr, code := hookRun(t, t.TempDir(), "", env, "ingest", "-wait"); code != 0 {
		t.Fatalf("a command the daemon took: exit %d: %s", code, stderr)
	}
	if cmds := hooktest.Commands(waitEvents(t, s, 1)); len(cmds) != 1 || cmds[0] != "make test" {
		t.Fatalf("got %q", cmds)
	}
	s.Drop("commit 1 events: disk I/O error (778)")
	_, stderr, code := hookRun(t, t.TempDir(), "make lint\n", env, "ingest", "-wait", "-stdin")
	if code != 75 || !strings.Contains(stderr, "dropped") || !strings.Contains(stderr, "disk I/O error") {
		t.Fatalf("a command the daemon dropped: exit %d: %s", code, stderr)
	}
	// Without -wait, clai-hook does not wait to know.
	if _, stderr, code := hookRun(t, t.TempDir(), "", env, "ingest"); code != 0 {
		t.Fatalf("without -wait: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"ingest", "-wait", "-wait"}, {"ingest", "-stdin", "x"}} {
		if _, stderr, code := hookRun(t, t.TempDir(), "", env, args...); code != 1 || !strings.Contains(stderr, "-stdin and -wait") {
			t.Errorf("clai-hook %q: exit %d: %s", args, code, stderr)
		}
	}
}
