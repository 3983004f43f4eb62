package shellinit_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cpty "github.com/creack/pty"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/hookproto/hooktest"
	"github.com/clai-sh/clai/runner/suggest/shellinit"
)

// These tests run real bash, zsh and fish in a terminal, as a person would,
// with the hooks of clai init in their rc files and a stand-in daemon on a
// socket of the test's own, and type commands a hook could stumble on.

// deadline only catches a hang: nothing waits for it when all goes well.
const deadline = 60 * time.Second

// term is a shell running in a pseudo-terminal.
type term struct {
	t    *testing.T
	tty  *os.File
	mu   sync.Mutex
	out  []byte
	more chan struct{} // closed and replaced at each read
	done chan struct{}
}

// startTerm starts argv in a terminal of its own, in dir, with env.
func startTerm(t *testing.T, dir string, env []string, argv ...string) *term {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	tty, err := cpty.StartWithAttrs(cmd, &cpty.Winsize{Rows: 40, Cols: 120}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, tty: tty, more: make(chan struct{}), done: make(chan struct{})}
	go tm.read()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = tty.Close()
		<-tm.done
	})
	return tm
}

func (tm *term) read() {
	defer close(tm.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := tm.tty.Read(buf)
		tm.mu.Lock()
		tm.out = append(tm.out, buf[:n]...)
		close(tm.more)
		tm.more = make(chan struct{})
		tm.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// output is all the terminal showed so far.
func (tm *term) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return string(tm.out)
}

// waitFor waits until ok holds of the output.
func (tm *term) waitFor(what string, ok func(string) bool) string {
	tm.t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		tm.mu.Lock()
		out, more := string(tm.out), tm.more
		tm.mu.Unlock()
		if ok(out) {
			return out
		}
		select {
		case <-more:
		case <-timer.C:
			tm.t.Fatalf("waiting for %s; the terminal showed:\n%q", what, tailOf(out, 3000))
		}
	}
}

func tailOf(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// userMark is what the user's own prompt hook prints, with $?: once for each
// command the shell ran (for bash and zsh, for each prompt). The terminal
// never redraws it, unlike the prompt.
const userMark = "<U:"

// run types line and Enter, and waits for the user's prompt hook to have
// run once more.
func (tm *term) run(line string) {
	tm.t.Helper()
	before := tm.ready()
	tm.type_(line + "\r")
	tm.waitFor(fmt.Sprintf("the prompt after %.60q", line), func(out string) bool { return strings.Count(out, userMark) > before })
}

// editorReady is what the shells' line editors print as they start to read a
// line: they turn bracketed paste on. Text typed before it could reach the
// terminal while it still is in canonical mode, where a line holds 4 KiB.
const editorReady = "\x1b[?2004h"

// ready waits for the line editor to read, and returns how many times the
// user's prompt hook ran.
func (tm *term) ready() int {
	tm.t.Helper()
	out := tm.waitFor("the line editor", func(out string) bool {
		return strings.Contains(out[max(strings.LastIndex(out, userMark), 0):], editorReady)
	})
	return strings.Count(out, userMark)
}

// type_ writes s to the terminal.
func (tm *term) type_(s string) {
	tm.t.Helper()
	if _, err := tm.tty.WriteString(s); err != nil {
		tm.t.Fatal(err)
	}
}

// paste types s as a bracketed paste: the shells take it whole, as they do
// text pasted in a terminal.
func (tm *term) paste(s string) {
	tm.t.Helper()
	before := tm.ready()
	tm.type_("\x1b[200~" + s + "\x1b[201~")
	tm.type_("\r")
	tm.waitFor("the prompt after a paste", func(out string) bool { return strings.Count(out, userMark) > before })
}

// waitStatus waits for the user's prompt hook and prompt to show status, the
// $? of the command just run.
func (tm *term) waitStatus(status int) {
	tm.t.Helper()
	u, p := fmt.Sprintf("<U:%d>", status), fmt.Sprintf("<P:%d>", status)
	tm.waitFor(u+" and "+p, func(out string) bool {
		i := strings.LastIndex(out, u)
		return i >= 0 && strings.Contains(out[i:], p)
	})
}

// shellSetup is how to start a shell with an rc file of the test's own.
type shellSetup struct {
	name string
	// rc is the user's rc: options that trip careless scripts (set -u, a
	// history time format in bash), their
	// prompt (which shows $? as <P:N>) and prompt hook (<U:N>), then the hooks
	// (at hookFile) loaded twice.
	rc func(hookFile string) string
	// invalid is what the shell makes of "echo 'a\xffb'" typed: bash keeps
	// the byte (clai-hook makes it U+FFFD), zsh's editor makes it '?' and
	// fish's drops it.
	invalid string
	// exit7 is a command that ends with status 7: a subshell where the
	// shell has them (zsh runs zshexit hooks as one ends).
	exit7 string
	// start is the shell's command line, given the test's home and its rc.
	start func(home, rc string) ([]string, []string)
}

var setups = map[string]shellSetup{
	"bash": {
		name:    "bash",
		invalid: "echo 'a\uFFFDb'",
		exit7:   "(exit 7)",
		rc: func(hook string) string {
			return "set -u\nPS1='<P:$?>'\nHISTCONTROL=ignorespace\nHISTTIMEFORMAT='%F %T '\nPROMPT_COMMAND='printf \"<U:%s>\" \"$?\";'\n" +
				"eval \"$(cat " + hook + ")\"\neval \"$(cat " + hook + ")\"\n"
		},
		start: func(home, rc string) ([]string, []string) {
			return []string{"bash", "--noprofile", "--rcfile", rc, "-i"}, nil
		},
	},
	"zsh": {
		name:    "zsh",
		invalid: "echo 'a?b'",
		exit7:   "(exit 7)",
		rc: func(hook string) string {
			return "setopt nounset ksharrays\nPROMPT='<P:%?>'\nRPROMPT=\nsetopt histignorespace\nprecmd() { print -n \"<U:$?>\" }\n" +
				"eval \"$(<" + hook + ")\"\neval \"$(<" + hook + ")\"\n"
		},
		start: func(home, rc string) ([]string, []string) {
			dir := filepath.Dir(rc)
			if err := os.Rename(rc, filepath.Join(dir, ".zshrc")); err != nil {
				panic(err)
			}
			return []string{"zsh", "-i"}, []string{"ZDOTDIR=" + dir}
		},
	},
	"fish": {
		name:    "fish",
		invalid: "echo 'ab'",
		exit7:   "sh -c 'exit 7'",
		rc: func(hook string) string {
			return "function fish_prompt; printf '<P:%s>' $status; end\nfunction fish_right_prompt; end\nfunction fish_greeting; end\n" +
				"function user_post --on-event fish_postexec; printf '<U:%s>' $status; end\n" +
				"source " + hook + "\nsource " + hook + "\n"
		},
		start: func(home, rc string) ([]string, []string) {
			config := filepath.Join(home, ".config")
			if err := os.MkdirAll(filepath.Join(config, "fish"), 0o700); err != nil {
				panic(err)
			}
			if err := os.Rename(rc, filepath.Join(config, "fish", "config.fish")); err != nil {
				panic(err)
			}
			return []string{"fish", "-i"}, []string{"XDG_CONFIG_HOME=" + config, "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}
		},
	},
}

// session is a shell with the hooks, and the stand-in daemon it tells.
type session struct {
	*term
	setup  shellSetup
	daemon *hooktest.Server
	home   string
	work   string
}

// inEachShell runs test in parallel for each shell with hooks, with a
// session of it started.
func inEachShell(t *testing.T, test func(t *testing.T, s *session)) {
	for _, name := range shellinit.Shells() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, startSession(t, setups[name], nil))
		})
	}
}

// startSession starts shell with the hooks, their script changed by edit
// (when set), and a daemon that assigns session ids d-PID.
func startSession(t *testing.T, s shellSetup, edit func(script string) string) *session {
	t.Helper()
	return startShell(t, s, edit, true)
}

// startShell is startSession, with the daemon up or away (its socket is
// then missing, and its Server closed).
func startShell(t *testing.T, s shellSetup, edit func(script string) string, up bool) *session {
	t.Helper()
	prog := testprog.RequireProgram(t, s.name, s.name)
	hook := testprog.BuildCommand(t, "./cmd/clai-hook")
	home := t.TempDir()
	d, err := hooktest.Start(filepath.Join(home, "d.sock"), func(e hookproto.Event) string { return "d-" + strconv.Itoa(e.PID) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	if !up {
		_ = d.Close()
		_ = os.Remove(d.Socket)
	}
	script, err := shellinit.Script(s.name, hook)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		script = edit(script)
	}
	hookFile := filepath.Join(home, "hook."+s.name)
	rcDir := filepath.Join(home, "rc")
	work := filepath.Join(home, "work dir 'q'")
	for _, dir := range []string{rcDir, work} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	rc := filepath.Join(rcDir, "rc")
	if err := os.WriteFile(hookFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rc, []byte(s.rc(hookFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	argv, extra := s.start(home, rc)
	argv[0] = prog
	env := append([]string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=xterm", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"CLAI_DAEMON_SOCKET=" + d.Socket, "XDG_RUNTIME_DIR=" + home,
	}, extra...)
	tm := startTerm(t, work, env, argv...)
	tm.waitFor("the first prompt", func(out string) bool { return strings.Contains(out, "<P:0>") })
	return &session{term: tm, setup: s, daemon: d, home: home, work: work}
}

// events waits for the daemon to have been told of the command last.
func (s *session) events(last string) []hookproto.Event {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), deadline)
	defer cancel()
	events, err := s.daemon.WaitFor(ctx, func(es []hookproto.Event) bool {
		return slices.Contains(hooktest.Commands(es), last)
	})
	if err != nil {
		s.t.Fatalf("%v: the daemon heard %q (and could not take %q); the terminal showed:\n%q",
			err, hooktest.Commands(events), s.daemon.Bad(), tailOf(s.output(), 3000))
	}
	return events
}

// sent waits for the daemon to have heard of n commands.
func (s *session) sent(n int) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), deadline)
	defer cancel()
	events, err := s.daemon.WaitFor(ctx, func(es []hookproto.Event) bool { return len(hooktest.Commands(es)) >= n })
	if err != nil {
		s.t.Fatalf("%v: the daemon heard %q, want %d commands", err, hooktest.Commands(events), n)
	}
}

// command is a command the daemon should hear of.
type command struct {
	cmd  string
	exit int
	// minMS, when set, is the least duration it may have.
	minMS int64
	// cwd, when set, is the folder it ended in; else the work folder.
	cwd string
}

func TestHooksInRealShells(t *testing.T) {
	t.Parallel()
	inEachShell(t, hostile)
}

// hostile types the commands a hook could stumble on and checks what the
// daemon heard, and that the user's prompt and prompt hook saw every $?.
func hostile(t *testing.T, s *session) {
	setup := s.setup
	sub := filepath.Join(s.work, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	quotes := `echo "it's \"quoted\" 'inside'" | tr a-z A-Z`
	multi := "echo \"first line\nsecond line\""
	unicode := "echo héllo 世界 🎉"
	long := ": " + strings.Repeat("x", 100<<10)
	want := []command{
		{cmd: quotes},
		{cmd: "false", exit: 1},
		{cmd: multi},
		{cmd: unicode},
		{cmd: setup.invalid},
		{cmd: long},
		{cmd: "sleep 0.3", minMS: 300},
		{cmd: "cd sub", cwd: sub},
		{cmd: "cd ..", cwd: s.work},
		{cmd: setup.exit7, exit: 7},
		{cmd: "echo done"},
	}
	// The hooks send in the background: each command is awaited before the
	// next is typed, so that the daemon hears them in order.
	s.run(quotes)
	s.sent(1)
	s.run("false")
	s.waitStatus(1)
	s.sent(2)
	s.run(strings.ReplaceAll(multi, "\n", "\r"))
	s.sent(3)
	s.run(unicode)
	s.sent(4)
	s.run("echo 'a\xffb'")
	s.sent(5)
	s.paste(long)
	s.sent(6)
	s.run("sleep 0.3")
	s.sent(7)
	s.run(" echo secret")
	if setup.name != "fish" {
		s.run("") // fish runs no hook for an empty line
	}
	s.run("cd sub")
	s.sent(8)
	s.run("cd ..")
	s.sent(9)
	s.run(setup.exit7)
	s.waitStatus(7)
	s.sent(10)
	s.run("echo done")
	events := s.events("echo done")
	check(t, s, events, want)
}

// check compares the events the daemon heard with the commands typed. The
// first is the shell's session_start, and the commands carry the session id
// the daemon gave it. A shell waits for the daemon at its start only a few
// milliseconds (10 to 20 to connect, 50 for the id), so that a slow daemon
// never holds it up: on a loaded machine the daemon may hear no
// session_start, or give its id too late, and the shell goes on with an id
// of its own (hookproto.LocalSessionID), which its commands carry.
func check(t *testing.T, s *session, events []hookproto.Event, want []command) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("the daemon heard nothing")
	}
	start := events[0]
	commands := events
	if start.Type == hookproto.TypeSessionStart {
		commands = events[1:]
	} else {
		t.Logf("the daemon heard no session_start: the shell could not reach it in time")
	}
	session := "d-" + strconv.Itoa(start.PID)
	if len(commands) > 0 && commands[0].Session != session {
		if !strings.HasPrefix(commands[0].Session, "l-"+strconv.Itoa(start.PID)+"-") {
			t.Fatalf("the commands carry neither the daemon's id %s nor one of the shell's own: %+v", session, events)
		}
		session = commands[0].Session
		t.Logf("the daemon gave no id in time: the commands carry the shell's own, %s", session)
	}
	for _, e := range commands {
		if e.Type != hookproto.TypeCommand {
			t.Errorf("a second %s: %+v", e.Type, e)
		}
	}
	got := asLearnt(commands)
	if len(got) != len(want) {
		t.Fatalf("the daemon heard %d commands, want %d:\n%s", len(got), len(want), describe(got))
	}
	for i, w := range want {
		g := got[i]
		cwd := s.work
		if w.cwd != "" {
			cwd = w.cwd
		}
		if g.Cmd != w.cmd || g.Exit != w.exit || g.Cwd != cwd || g.Session != session || g.PID != start.PID || g.Shell != start.Shell {
			t.Errorf("command %d: got %s\nwant cmd (%d bytes) %.80q exit %d cwd %q session %q", i, describe([]hookproto.Event{g}), len(w.cmd), w.cmd, w.exit, cwd, session)
		}
		if g.DurationMS < w.minMS || (s.shellHasDuration() && g.DurationMS < 0) {
			t.Errorf("command %.40q: duration %d ms, want at least %d", w.cmd, g.DurationMS, w.minMS)
		}
	}
}

// asLearnt is the commands among events as the daemon learns them: one to
// take only if new is dropped when it is the last one taken again.
func asLearnt(events []hookproto.Event) []hookproto.Event {
	var got []hookproto.Event
	for _, e := range events {
		if e.Type != hookproto.TypeCommand || e.IfNew && len(got) > 0 && got[len(got)-1].Cmd == e.Cmd {
			continue
		}
		got = append(got, e)
	}
	return got
}

// shellHasDuration reports whether the shell measures durations: all do
// (bash from 5.0).
func (s *session) shellHasDuration() bool { return true }

func describe(events []hookproto.Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "  %s (%d bytes) %.80q exit %d %d ms cwd %q session %q pid %d\n", e.Type, len(e.Cmd), e.Cmd, e.Exit, e.DurationMS, e.Cwd, e.Session, e.PID)
	}
	return b.String()
}
