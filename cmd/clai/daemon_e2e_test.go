package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	_ "modernc.org/sqlite"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// runningDaemon is a clai daemon process of a test.
type runningDaemon struct {
	cmd      *exec.Cmd
	stderr   *lockedBuffer
	exited   chan error
	servingC chan struct{}
}

// lockedBuffer is a process's output, read while it is written.
type lockedBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	grew chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.grew != nil {
		close(l.grew)
		l.grew = nil
	}
	return l.b.Write(p)
}

// next is the output so far, and a channel closed at the next write.
func (l *lockedBuffer) next() (string, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.grew == nil {
		l.grew = make(chan struct{})
	}
	return l.b.String(), l.grew
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startDaemon starts clai daemon with args and returns it once it says it
// serves; it is stopped when the test ends.
func (e *sessionsEnv) startDaemon(t *testing.T, args ...string) *runningDaemon {
	t.Helper()
	d := e.spawnDaemon(t, args...)
	select {
	case <-d.serving():
	case err := <-d.exited:
		t.Fatalf("clai daemon ended (%v) before it served:\n%s", err, d.stderr)
	}
	return d
}

// spawnDaemon starts clai daemon with args; its stderr is kept and told
// line by line.
func (e *sessionsEnv) spawnDaemon(t *testing.T, args ...string) *runningDaemon {
	t.Helper()
	d := &runningDaemon{cmd: exec.Command(e.bin, append([]string{"daemon"}, args...)...), stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	d.cmd.Env = e.env
	pipe, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			fmt.Fprintln(d.stderr, sc.Text())
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	serving := make(chan struct{})
	go func() {
		for line := range lines {
			if strings.Contains(line, "serving on") {
				close(serving)
				for range lines {
				}
				return
			}
		}
	}()
	d.servingC = serving
	// Wait closes the pipe: it waits until the output is read whole.
	go func() {
		<-read
		d.exited <- d.cmd.Wait()
	}()
	t.Cleanup(func() { d.stop(t) })
	return d
}

func (d *runningDaemon) serving() <-chan struct{} { return d.servingC }

// stop ends the daemon with SIGTERM and waits for it.
func (d *runningDaemon) stop(t *testing.T) error {
	if d.cmd.ProcessState != nil {
		return nil
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		d.exited <- err
		return err
	case <-time.After(60 * time.Second):
		_ = d.cmd.Process.Kill()
		t.Errorf("clai daemon did not end on SIGTERM:\n%s", d.stderr)
		return nil
	}
}

// gitRepo makes a git repository with a remote and a Makefile of targets.
func gitRepo(t *testing.T, dir string, targets ...string) string {
	t.Helper()
	repo := filepath.Join(dir, "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://example.com/team/app.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	var mk strings.Builder
	for _, target := range targets {
		fmt.Fprintf(&mk, "%s:\n\t@echo %s\n", target, target)
	}
	if err := os.WriteFile(filepath.Join(repo, "Makefile"), []byte(mk.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo
}

// commandLine is one NDJSON event of a command.
func commandLine(session, cwd, cmd string, at time.Time) string {
	b, _ := json.Marshal(map[string]any{"v": 1, "type": "command", "session": session, "shell": "bash", "pid": 99,
		"ts_ms": at.UnixMilli(), "cwd": cwd, "cmd": cmd, "exit": 0, "duration_ms": 5})
	return string(b) + "\n"
}

func (e *sessionsEnv) socket() string { return filepath.Join(e.runtime, "clai", "daemon.sock") }

func TestSuggestOffersTheNextCommandWithItsReasons(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	repo := gitRepo(t, e.dir, "test", "lint")
	if _, stderr, code := e.clai(t, "suggest", "--limit", "0"); code != 2 || !strings.Contains(stderr, "--limit 0: want 1 to 50") {
		t.Fatalf("clai suggest --limit 0: exit %d\n%s", code, stderr)
	}
	// With no daemon, clai suggest says how to start one.
	_, stderr, code := e.clai(t, "suggest")
	if code != 1 || !strings.Contains(stderr, "the suggestion daemon is not running") || !strings.Contains(stderr, "clai daemon &") {
		t.Fatalf("clai suggest with no daemon: exit %d\n%s", code, stderr)
	}
	e.startDaemon(t)
	var lines strings.Builder
	now := time.Now()
	for i := range 4 {
		at := now.Add(time.Duration(i) * time.Minute)
		lines.WriteString(commandLine("s1", repo, "git pull", at))
		lines.WriteString(commandLine("s1", repo, "make test", at.Add(time.Second)))
		lines.WriteString(commandLine("s1", repo, "git commit -am 'round "+fmt.Sprint(i)+"'", at.Add(2*time.Second)))
	}
	lines.WriteString(commandLine("s1", repo, "git pull", now.Add(10*time.Minute)))
	accepted, skipped, err := daemon.NewClient(e.socket()).Ingest(t.Context(), []byte(lines.String()))
	if err != nil || accepted != 13 || skipped != 0 {
		t.Fatalf("ingest: %d taken, %d skipped, %v", accepted, skipped, err)
	}
	suggest := exec.CommandContext(t.Context(), e.bin, "suggest", "--json", "--limit", "3")
	suggest.Dir, suggest.Env = repo, append(e.env, "CLAI_SESSION_ID=s1")
	out, err := suggest.Output()
	if err != nil {
		t.Fatalf("clai suggest --json: %v\n%s", err, out)
	}
	var reply daemon.SuggestReply
	if err := json.Unmarshal(out, &reply); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(reply.Suggestions) != 3 {
		t.Fatalf("suggestions %s, want 3", out)
	}
	top := reply.Suggestions[0]
	if top.Command != "make test" || top.Confidence <= 0.5 || !strings.Contains(strings.Join(top.Reasons, "; "), "repo transition after `git pull` (4×)") ||
		!strings.Contains(strings.Join(top.Reasons, "; "), "project task (Makefile)") {
		t.Fatalf("top suggestion %+v", top)
	}
	text := exec.CommandContext(t.Context(), e.bin, "suggest")
	text.Dir, text.Env = repo, append(e.env, "CLAI_SESSION_ID=s1")
	out, err = text.Output()
	if err != nil {
		t.Fatalf("clai suggest: %v\n%s", err, out)
	}
	first := strings.Split(string(out), "\n")[1]
	if !strings.HasPrefix(first, "make test ") || !strings.Contains(first, "%") || !strings.Contains(first, "repo transition after `git pull` (4×)") {
		t.Fatalf("clai suggest printed:\n%s", out)
	}
	// The small client prints the same, as text and as JSON.
	hook := testprog.BuildCommand(t, "./cmd/clai-hook")
	for _, args := range [][]string{{"suggest"}, {"suggest", "--json", "--limit", "3"}} {
		want := exec.CommandContext(t.Context(), e.bin, args...)
		want.Dir, want.Env = repo, append(e.env, "CLAI_SESSION_ID=s1")
		wantOut, err := want.Output()
		if err != nil {
			t.Fatalf("clai %v: %v", args, err)
		}
		hookArgs := slices.Clone(args)
		for i, a := range hookArgs {
			hookArgs[i] = strings.TrimPrefix(a, "-")
		}
		got := exec.CommandContext(t.Context(), hook, hookArgs...)
		got.Dir, got.Env = repo, append(e.env, "CLAI_SESSION_ID=s1")
		gotOut, err := got.Output()
		if err != nil || !sameSuggestions(gotOut, wantOut) {
			t.Fatalf("clai-hook %v: %v\n%s\nwant (clai %v):\n%s", hookArgs, err, gotOut, args, wantOut)
		}
	}
	bad := exec.CommandContext(t.Context(), hook, "suggest", "-limit", "51")
	bad.Dir, bad.Env = repo, e.env
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "want 1 to 50") {
		t.Fatalf("clai-hook suggest -limit 51: %v\n%s", err, out)
	}
}

// sameSuggestions reports whether two outputs of a suggestion client say the
// same: as text, byte for byte; as JSON, the same suggestions and context
// with scores and confidences that differ by less than a thousandth, since
// they decay with the time of the ask, which differs between two asks.
func sameSuggestions(got, want []byte) bool {
	var g, w daemon.SuggestReply
	if json.Unmarshal(want, &w) != nil {
		return string(got) == string(want)
	}
	if json.Unmarshal(got, &g) != nil || len(g.Suggestions) != len(w.Suggestions) {
		return false
	}
	for i := range w.Suggestions {
		gs, ws := &g.Suggestions[i], &w.Suggestions[i]
		if math.Abs(gs.Score-ws.Score) > 1e-3*math.Max(1, math.Abs(ws.Score)) || math.Abs(gs.Confidence-ws.Confidence) > 1e-3 {
			return false
		}
		gs.Score, gs.Confidence = ws.Score, ws.Confidence
	}
	return reflect.DeepEqual(g, w)
}

func TestASecondDaemonExitsSayingOneIsRunning(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	first := e.startDaemon(t)
	_, stderr, code := e.clai(t, "daemon")
	if code != 1 || !strings.Contains(stderr, fmt.Sprintf("daemon already running as process %d", first.cmd.Process.Pid)) {
		t.Fatalf("a second clai daemon: exit %d\n%s", code, stderr)
	}
	if _, err := daemon.NewClient(e.socket()).Health(t.Context()); err != nil {
		t.Fatalf("the first daemon after the second one: %v", err)
	}
	// The terminal it was started from closes: it serves on.
	if err := first.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.NewClient(e.socket()).Health(t.Context()); err != nil {
		t.Fatalf("the daemon after a hangup: %v\n%s", err, first.stderr)
	}
	if err := first.stop(t); err != nil {
		t.Fatalf("clai daemon on SIGTERM: %v\n%s", err, first.stderr)
	}
	if _, err := os.Lstat(e.socket()); !os.IsNotExist(err) {
		t.Fatalf("the socket after the daemon ended: %v", err)
	}
}

// Ten daemons started at once: one takes the lock, migrates and serves; the
// nine others exit saying one runs, and the database was migrated once.
func TestTenDaemonsAtOnceOneMigratesAndServes(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	const n = 10
	ds := make([]*runningDaemon, n)
	for i := range ds {
		ds[i] = e.spawnDaemon(t)
	}
	var served, refused int
	for _, d := range ds {
		select {
		case <-d.serving():
			served++
		case err := <-d.exited:
			d.exited <- err
			if !strings.Contains(d.stderr.String(), "daemon already running") || d.cmd.ProcessState.ExitCode() != 1 {
				t.Fatalf("a daemon ended (%v):\n%s", err, d.stderr)
			}
			refused++
		}
	}
	if served != 1 || refused != n-1 {
		t.Fatalf("%d daemons served, %d were refused; want 1 and %d", served, refused, n-1)
	}
	db, err := sql.Open("sqlite", filepath.Join(e.dir, "clai", "suggest.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, top int
	if err := db.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&rows, &top); err != nil {
		t.Fatal(err)
	}
	if rows != store.SchemaVersion() || top != store.SchemaVersion() {
		t.Fatalf("schema_migrations holds %d rows up to version %d, want each of the %d versions once", rows, top, store.SchemaVersion())
	}
	if _, err := daemon.NewClient(e.socket()).Health(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestRebuildAggregatesRestoresWhatWasLearnt(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	d := e.startDaemon(t)
	now := time.Now()
	var lines strings.Builder
	for i, cmd := range []string{"ls", "make", "ls", "make", "git status"} {
		lines.WriteString(commandLine("s", e.dir, cmd, now.Add(time.Duration(i)*time.Second)))
	}
	c := daemon.NewClient(e.socket())
	if _, _, err := c.Ingest(t.Context(), []byte(lines.String())); err != nil {
		t.Fatal(err)
	}
	transitions := func() string {
		var got struct {
			Transitions []struct{ Prev, Next string }
		}
		if err := c.Get(t.Context(), "/debug/transitions", &got); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, tr := range got.Transitions {
			fmt.Fprintf(&b, "%s>%s ", tr.Prev, tr.Next)
		}
		return b.String()
	}
	want := transitions()
	if want != "ls>make make>git status make>ls " {
		t.Fatalf("transitions %q", want)
	}
	if err := d.stop(t); err != nil {
		t.Fatalf("clai daemon on SIGTERM: %v\n%s", err, d.stderr)
	}
	db, err := sql.Open("sqlite", filepath.Join(e.dir, "clai", "suggest.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM transitions; DELETE FROM command_scores`); err != nil {
		t.Fatal(err)
	}
	rebuilt := e.startDaemon(t, "--rebuild-aggregates")
	if got := transitions(); got != want {
		t.Fatalf("after --rebuild-aggregates: %q, want %q\n%s", got, want, rebuilt.stderr)
	}
	if !strings.Contains(rebuilt.stderr.String(), "rebuilt the transitions and scores") {
		t.Fatalf("the daemon did not say it rebuilt:\n%s", rebuilt.stderr)
	}
}

func TestADaemonRefusesANewerDatabase(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	path := filepath.Join(e.dir, "clai", "suggest.db")
	s, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO schema_migrations(version, applied_ms) VALUES (?, 0)`, store.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.clai(t, "daemon")
	if code != 1 || !strings.Contains(stderr, "newer than this clai") || !strings.Contains(stderr, "run a newer clai") {
		t.Fatalf("clai daemon on a newer database: exit %d\n%s", code, stderr)
	}
}

func TestADaemonRefusesARuntimeFolderOthersMayEnter(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	if err := os.Mkdir(filepath.Join(e.runtime, "clai"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(e.runtime, "clai"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.clai(t, "daemon")
	if code != 1 || !strings.Contains(stderr, "want 0700") {
		t.Fatalf("clai daemon in a 0755 runtime folder: exit %d\n%s", code, stderr)
	}
}

// As a new user would: a fresh bash, zsh or fish with the hooks of clai
// init works a while in a git repository with a Makefile, and clai suggest
// offers the next command with its reasons.
func TestShellHooksTeachTheDaemonAndSuggestTheNextCommand(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			learnFromShell(t, shell)
		})
	}
}

// learnFromShell runs shell with the hooks of clai init, reading its
// commands from a pipe, and checks what clai suggest then offers.
func learnFromShell(t *testing.T, shell string) {
	prog := testprog.RequireProgram(t, shell, shell)
	testprog.RequireProgram(t, "make", "make")
	e := newSessionsEnv(t)
	home := t.TempDir()
	// clai init finds clai-hook on PATH, as an install of both puts it.
	bin := filepath.Join(home, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testprog.BuildCommand(t, "./cmd/clai-hook"), filepath.Join(bin, "clai-hook")); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t, e.dir, "test", "lint")
	e.startDaemon(t)
	argv, env := shellWithHooks(t, shell, home, e.bin)
	script := "cd " + shellQuote(repo) + "\n" + `echo "SESSION=$CLAI_SESSION_ID"` + "\n" +
		strings.Repeat("git status --short\nmake test\n", 4) + "exit\n"
	// The deadline only catches a shell that never ends.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, prog, argv...)
	// clai-hook session-start gives up on the daemon after its connect
	// timeout, which a loaded machine may pass: the longest is asked for.
	sh.Env = append(append(e.env, "HOME="+home, "TERM=dumb", "CLAI_HOOK_TIMEOUT_MS=20", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	out := typeInTerminal(t, sh, script)
	// The daemon's id, or the shell's own when the daemon's came too late
	// for clai-hook session-start on a loaded machine.
	m := regexp.MustCompile(`SESSION=((?:d|l-[0-9]+)-[0-9a-f]{16})\r?\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the shell has no session id:\n%q", out)
	}
	session := m[1]
	// The shell has ended: its hooks wrote every command to the spool,
	// which the daemon reads before it answers. It learnt that make test
	// followed git status in each of the four rounds.
	c := daemon.NewClient(e.socket())
	if n := learnt(t, c, repo, "git status --short", "make test"); n != 4 {
		t.Fatalf("the daemon learnt make test after git status %d times, want 4:\n%s\n%q", n, dumpEvents(t, e), out)
	}
	// In the live shell, git status ran last.
	suggest := exec.CommandContext(t.Context(), e.bin, "suggest", "--limit", "10", "--last", "git status --short")
	suggest.Dir, suggest.Env = repo, append(e.env, "CLAI_SESSION_ID="+session)
	printed, err := suggest.Output()
	if err != nil {
		t.Fatalf("clai suggest: %v\n%s", err, printed)
	}
	lines := strings.Split(string(printed), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "make test ") ||
		!strings.Contains(lines[1], "repo transition after `git status --short` (4×)") || !strings.Contains(lines[1], "project task (Makefile)") {
		t.Fatalf("clai suggest in session %s printed:\n%s\n%s", session, printed, dumpEvents(t, e))
	}
	if !strings.Contains(string(printed), "make lint") {
		t.Fatalf("the other task is not suggested:\n%s", printed)
	}
}

// learnt is how many times the daemon saw next follow prev in the
// repository of cwd.
func learnt(t *testing.T, c *daemon.Client, cwd, prev, next string) int {
	t.Helper()
	var got struct {
		Transitions []struct {
			Next  string
			Count int
		}
	}
	if err := c.Get(t.Context(), "/debug/transitions?cwd="+url.QueryEscape(cwd)+"&prev="+url.QueryEscape(prev), &got); err != nil {
		t.Fatal(err)
	}
	for _, tr := range got.Transitions {
		if tr.Next == next {
			return tr.Count
		}
	}
	return 0
}

// dumpEvents lists the command events of the database, for a failure's
// message.
func dumpEvents(t *testing.T, e *sessionsEnv) string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(e.dir, "clai", "suggest.db"))
	if err != nil {
		return err.Error()
	}
	defer db.Close()
	rows, err := db.Query(`SELECT session_id, ts_ms, repo_key != '', cmd FROM command_events ORDER BY id`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var session, cmd string
		var at int64
		var inRepo bool
		if err := rows.Scan(&session, &at, &inRepo, &cmd); err != nil {
			return err.Error()
		}
		fmt.Fprintf(&b, "%s %d repo=%v %q\n", session, at, inRepo, cmd)
	}
	return b.String()
}

// typeInTerminal runs cmd in a terminal of its own, types script into it,
// and returns what it printed until it ended.
func typeInTerminal(t *testing.T, cmd *exec.Cmd, script string) string {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out lockedBuffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&out, tty)
	}()
	if _, err := tty.WriteString(script); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%q", cmd.Path, err, out.String())
	}
	_ = tty.Close()
	<-read
	return out.String()
}

// shellWithHooks writes the rc file of shell in home, which loads the hooks
// of clai init, and returns the shell's arguments and environment to start
// it interactive with that rc file.
func shellWithHooks(t *testing.T, shell, home, clai string) (argv, env []string) {
	t.Helper()
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	switch shell {
	case "bash":
		rc := filepath.Join(home, "bashrc")
		write(rc, fmt.Sprintf("eval \"$(%s init bash)\"\n", shellQuote(clai)))
		return []string{"--noprofile", "--rcfile", rc, "-i"}, []string{"HISTFILE=" + filepath.Join(home, "history")}
	case "zsh":
		write(filepath.Join(home, "zdot", ".zshrc"), fmt.Sprintf("eval \"$(%s init zsh)\"\n", shellQuote(clai)))
		return []string{"-i"}, []string{"ZDOTDIR=" + filepath.Join(home, "zdot")}
	default:
		write(filepath.Join(home, "config", "fish", "config.fish"), fmt.Sprintf("%s init fish | source\n", shellQuote(clai)))
		return []string{"-i"}, []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
