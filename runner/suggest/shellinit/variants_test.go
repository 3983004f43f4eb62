package shellinit_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/hookproto/hooktest"
	"github.com/clai-sh/clai/runner/suggest/shellinit"
)

// stringForm makes the bash hooks use the string form of PROMPT_COMMAND, as
// they do in bash before 5.1.
func stringForm(script string) string {
	const test = "(( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) ))"
	if !strings.Contains(script, test) {
		panic("the bash hooks no longer test the version")
	}
	return strings.Replace(script, test, "false", 1)
}

// TestBashPromptCommand: the hooks join the user's PROMPT_COMMAND in each of
// its forms, which still runs and sees $?, and they are installed once
// though loaded twice.
func TestBashPromptCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, promptCommand string
		edit                func(string) string
		// shows is what the user's PROMPT_COMMAND prints after false.
		shows string
	}{
		{name: "string with a closing semicolon", promptCommand: `PROMPT_COMMAND='printf "<U:%s>" "$?";'`, shows: "<U:1>"},
		{name: "string without", promptCommand: `PROMPT_COMMAND='printf "<U:%s>" "$?"'`, shows: "<U:1>"},
		{name: "array", promptCommand: `PROMPT_COMMAND=('printf "<U:%s>" "$?"' 'printf "<V:%s>" "$?"')`, shows: "<U:1><V:1>"},
		{name: "string form, with a closing semicolon", promptCommand: `PROMPT_COMMAND='printf "<U:%s>" "$?";'`, edit: stringForm, shows: "<U:1>"},
		{name: "string form, without", promptCommand: `PROMPT_COMMAND='printf "<U:%s>" "$?"'`, edit: stringForm, shows: "<U:1>"},
		{name: "string form, ending with a background job", promptCommand: `PROMPT_COMMAND='printf "<U:%s>" "$?"; true &'`, edit: stringForm, shows: "<U:1>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			setup := setups["bash"]
			setup.rc = func(hook string) string {
				return "PS1='<P:$?>'\n" + c.promptCommand + "\neval \"$(cat " + hook + ")\"\nsource " + hook + "\n"
			}
			s := startSession(t, setup, c.edit)
			s.run("false")
			s.sent(1)
			s.waitFor(c.shows+" and <P:1>", func(out string) bool {
				i := strings.LastIndex(out, c.shows)
				return i >= 0 && strings.Contains(out[i:], "<P:1>")
			})
			s.run("echo done")
			check(t, s, s.events("echo done"), []command{{cmd: "false", exit: 1}, {cmd: "echo done"}})
			if out := s.output(); strings.Contains(out, "syntax error") || strings.Contains(out, "command not found") {
				t.Errorf("the shell complained:\n%q", tailOf(out, 2000))
			}
		})
	}
}

// TestDaemonAway: without a daemon the shells work as ever, and keep a
// session id of their own.
func TestDaemonAway(t *testing.T) {
	t.Parallel()
	inEachShell(t, func(t *testing.T, s *session) {
		if err := s.daemon.Close(); err != nil {
			t.Fatal(err)
		}
		s.run("false")
		s.waitStatus(1)
		s.run("echo id=$CLAI_SESSION_ID.")
		id := regexp.MustCompile(`id=(d-[0-9]+)\.`)
		s.waitFor("the session id", func(out string) bool { return id.MatchString(out) })
		// A shell started while the daemon is away makes its own id.
		away := startShell(t, s.setup, nil, false)
		away.run("echo id=$CLAI_SESSION_ID.")
		local := regexp.MustCompile(`id=l-[0-9]+-[0-9a-f]{16}\.`)
		away.waitFor("a shell-local session id", func(out string) bool { return local.MatchString(out) })
		away.run("false")
		away.waitStatus(1)
		// With the daemon away, nothing piles up in the spool.
		for _, sh := range []*session{s, away} {
			if left, _ := os.ReadDir(filepath.Join(sh.home, hookproto.SpoolFolder)); len(left) != 0 {
				t.Errorf("the spool holds %v with the daemon away", left)
			}
		}
	})
}

// TestNonInteractive: a shell that is not interactive gets no hooks and
// starts no session, unless CLAI_HOOK_NONINTERACTIVE=1.
func TestNonInteractive(t *testing.T) {
	t.Parallel()
	hook := testprog.BuildCommand(t, "./cmd/clai-hook")
	for _, c := range []struct{ shell, check string }{
		{"bash", `n=0; for e in "${PROMPT_COMMAND[@]}"; do [[ $e == *_clai_hook_precmd* ]] && n=$((n+1)); done
			[[ $n == 1 && $PS0 == *_clai_hook_t0* && $PS0 != *_clai_hook_t0*_clai_hook_t0* ]] && echo installed "$CLAI_SESSION_ID"`},
		{"zsh", `[[ "$precmd_functions" == *_clai_hook_precmd* && "$precmd_functions" != *_clai_hook_precmd*_clai_hook_precmd* && "$preexec_functions" != *_clai_hook_preexec*_clai_hook_preexec* ]] && echo installed "$CLAI_SESSION_ID"`},
		{"fish", `functions -q _clai_hook_postexec; and echo installed "$CLAI_SESSION_ID"`},
	} {
		t.Run(c.shell, func(t *testing.T) {
			t.Parallel()
			sh := testprog.RequireProgram(t, c.shell, c.shell)
			script, err := shellinit.Script(c.shell, hook)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			d, err := hooktest.Start(filepath.Join(dir, "d.sock"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			file := filepath.Join(dir, "hook")
			if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, optIn := range []bool{false, true} {
				// Loaded twice, the hooks are installed once.
				cmd := exec.CommandContext(t.Context(), sh, "-c", "source "+file+"; source "+file+"; "+c.check+"; true")
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CLAI_DAEMON_SOCKET=" + d.Socket}
				if optIn {
					cmd.Env = append(cmd.Env, "CLAI_HOOK_NONINTERACTIVE=1")
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if installed := strings.HasPrefix(string(out), "installed l-"); installed != optIn || (!optIn && len(out) != 0) {
					t.Errorf("opted in: %v; the shell printed %q", optIn, out)
				}
				starts := 0
				for _, e := range d.Events() {
					if e.Type == hookproto.TypeSessionStart {
						starts++
					}
				}
				if want := map[bool]int{false: 0, true: 1}[optIn]; starts != want {
					t.Errorf("opted in: %v; %d sessions started, want %d", optIn, starts, want)
				}
			}
		})
	}
}

// TestLastBackgroundPID: the hooks run clai-hook in the background, yet
// leave the user's last background process id ($!, $last_pid) as it was.
func TestLastBackgroundPID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ shell, start, check string }{
		{"bash", `sleep 5 & p=$!`, `[ "$p" = "$!" ] && echo "same""-pid"`},
		{"zsh", `sleep 5 & p=$!`, `[ "$p" = $! ] && echo "same""-pid"`},
		{"fish", `sleep 5 &; set p $last_pid`, `test "$p" = "$last_pid"; and echo "same""-pid"`},
	} {
		t.Run(c.shell, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, setups[c.shell], nil)
			s.run(c.start)
			s.sent(1)
			s.run(c.check)
			s.sent(2)
			s.waitFor("the same process id", func(out string) bool { return strings.Contains(out, "same-pid") })
		})
	}
}

// setHookBin is the command that points a shell's hooks at another
// clai-hook.
var setHookBin = map[string]string{
	"bash": "_clai_hook_bin=%s",
	"zsh":  "_clai_hook_bin=%s",
	"fish": "set -g _clai_hook_bin %s",
}

// TestHooksStartNoProgramAtAPrompt: at a prompt the hooks append the command
// to the spool with the shell's own builtins; they start no program, which
// would cost each prompt milliseconds.
func TestHooksStartNoProgramAtAPrompt(t *testing.T) {
	t.Parallel()
	inEachShell(t, func(t *testing.T, s *session) {
		// A clai-hook that notes each run, then does its work.
		ran := filepath.Join(s.home, "ran")
		spy := filepath.Join(s.home, "spy-hook")
		real := testprog.BuildCommand(t, "./cmd/clai-hook")
		script := "#!/bin/sh\necho \"$*\" >>'" + ran + "'\nexec '" + real + "' \"$@\"\n"
		if err := os.WriteFile(spy, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		s.run(fmt.Sprintf(setHookBin[s.setup.name], spy))
		s.sent(1)
		s.run("false")
		s.waitStatus(1)
		s.run("echo done")
		s.events("echo done")
		if data, err := os.ReadFile(ran); err == nil {
			t.Errorf("the hooks ran clai-hook at a prompt: %q", data)
		}
	})
}

// TestUnwritableSpoolShowsNothing: a hook that cannot write its spool (the
// daemon died and left its socket, and the spool's folder is gone) shows no
// error and keeps $?.
func TestUnwritableSpoolShowsNothing(t *testing.T) {
	t.Parallel()
	inEachShell(t, func(t *testing.T, s *session) {
		if err := s.daemon.Close(); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("unix", s.daemon.Socket)
		if err != nil {
			t.Fatal(err)
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false)
		_ = ln.Close()
		if err := os.RemoveAll(filepath.Join(s.home, hookproto.SpoolFolder)); err != nil {
			t.Fatal(err)
		}
		before := len(s.output())
		s.run("false")
		s.waitStatus(1)
		s.run("echo done")
		s.waitStatus(0)
		out := s.output()[before:]
		for _, complaint := range []string{"no such file", "No such file", "warning", "rror"} {
			if strings.Contains(out, complaint) {
				t.Errorf("the shell showed %q:\n%q", complaint, out)
			}
		}
	})
}

// TestBashHistoryControl: with HISTCONTROL=ignoreboth:erasedups and the
// shared-history idiom (history -a; history -c; history -r), bash's hooks
// record a command erasedups moved, never a line kept out of the history,
// and never another terminal's command the history read.
func TestBashHistoryControl(t *testing.T) {
	t.Parallel()
	setup := setups["bash"]
	var histfile string
	setup.rc = func(hook string) string {
		histfile = filepath.Join(filepath.Dir(hook), "history")
		return "PS1='<P:$?>'\nHISTCONTROL=ignoreboth:erasedups\nHISTFILE=" + histfile + "\n" +
			"PROMPT_COMMAND='printf \"<U:%s>\" \"$?\"; history -a; history -c; history -r'\n" +
			"eval \"$(cat " + hook + ")\"\n"
	}
	s := startSession(t, setup, nil)
	s.run("echo a")
	s.run("echo b")
	s.run("echo a") // erasedups moves it last: the history does not grow
	s.run(" echo secret")
	s.run("echo a") // ignoredups: the same again
	s.run("")
	// Another terminal's command, which this one reads at its next prompt.
	f, err := os.OpenFile(histfile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("git push --force\n"); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	s.run("")
	s.run("")
	s.run("echo c")
	events := s.events("echo c")
	for _, e := range events {
		if strings.Contains(e.Cmd, "secret") || strings.Contains(e.Cmd, "push") {
			t.Errorf("the daemon heard %q", e.Cmd)
		}
	}
	if got, want := hooktest.Commands(asLearnt(events)), []string{"echo a", "echo b", "echo a", "echo c"}; !slices.Equal(got, want) {
		t.Errorf("learnt %q, want %q\n%s", got, want, describe(events))
	}
}

// TestBashWithoutPromptVars: PS0 is left alone where prompts are not
// expanded (shopt -u promptvars), where it would print itself; the hooks
// still record the commands the history grows by.
func TestBashWithoutPromptVars(t *testing.T) {
	t.Parallel()
	setup := setups["bash"]
	setup.rc = func(hook string) string {
		return "shopt -u promptvars\nPS1='<P:0>'\nPROMPT_COMMAND='printf \"<U:%s>\" \"$?\"'\neval \"$(cat " + hook + ")\"\n"
	}
	s := startSession(t, setup, nil)
	s.run("echo one")
	s.run("echo two")
	s.events("echo two")
	if out := s.output(); strings.Contains(out, "_clai_hook") {
		t.Errorf("the hooks printed themselves:\n%q", out)
	}
}

// TestBashPS0ReplacedLater: an rc that sets PS0 after the hooks (a prompt
// framework, say) leaves them without it; they record what the history
// grows by, as without PS0.
func TestBashPS0ReplacedLater(t *testing.T) {
	t.Parallel()
	setup := setups["bash"]
	setup.rc = func(hook string) string {
		return "PS1='<P:$?>'\nPROMPT_COMMAND='printf \"<U:%s>\" \"$?\"'\neval \"$(cat " + hook + ")\"\nPS0=''\n"
	}
	s := startSession(t, setup, nil)
	s.run("echo one")
	s.run("echo two")
	if got := hooktest.Commands(asLearnt(s.events("echo two"))); !slices.Equal(got, []string{"echo one", "echo two"}) {
		t.Errorf("learnt %q", got)
	}
}

// TestBashPromptCommandReplacedLater: an rc file that sets PROMPT_COMMAND
// after the hooks (anew as a string or an array, or with a command put
// before them) leaves the recording on: the hooks put themselves back first,
// and the next prompt says so once.
func TestBashPromptCommandReplacedLater(t *testing.T) {
	t.Parallel()
	const user = `printf "<U:%s>" "$?"`
	for _, c := range []struct {
		name, later string
		edit        func(string) string
	}{
		{name: "string", later: `PROMPT_COMMAND='` + user + `'` + "\nx=1"},
		// The last line: the hook goes back as the first prompt runs.
		{name: "string, the rc file's last line", later: `PROMPT_COMMAND='` + user + `'`},
		{name: "string, the rc file's last line, in the string form", later: `PROMPT_COMMAND='` + user + `'`, edit: stringForm},
		{name: "string, in the string form", later: `PROMPT_COMMAND='` + user + `'`, edit: stringForm},
		{name: "array", later: `PROMPT_COMMAND=('` + user + `' 'true')`},
		{name: "put before", later: `PROMPT_COMMAND='` + user + `;'"$PROMPT_COMMAND"`},
		{name: "put before, in the string form", later: `PROMPT_COMMAND='` + user + `;'"$PROMPT_COMMAND"`, edit: stringForm},
		{name: "appended", later: `PROMPT_COMMAND+=('` + user + `')`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			setup := setups["bash"]
			setup.rc = func(hook string) string {
				return "set -u\nPS1='<P:$?>'\nHISTFILE=" + filepath.Join(filepath.Dir(hook), "history") + "\n" +
					"eval \"$(cat " + hook + ")\"\n" + c.later + "\n"
			}
			s := startSession(t, setup, c.edit)
			recordsAfterRearm(t, s)
			const said = "clai: PROMPT_COMMAND was replaced after clai init; recording re-armed"
			out := s.output()
			if n := strings.Count(out, said); n != 1 && c.name != "appended" {
				t.Errorf("the shell said %q %d times, want once:\n%q", said, n, tailOf(out, 2000))
			} else if n != 0 && c.name == "appended" {
				t.Errorf("the shell said %q with the hooks still first:\n%q", said, tailOf(out, 2000))
			}
			if strings.Contains(out, "syntax error") || strings.Contains(out, "command not found") || strings.Contains(out, "unbound variable") {
				t.Errorf("the shell complained:\n%q", tailOf(out, 2000))
			}
			// The guard is gone once a prompt ends with the hooks first.
			s.run("trap -p DEBUG; echo trap-shown")
			s.waitFor("the traps", func(out string) bool { return strings.Contains(out, "trap-shown\r\n") })
			if out := s.output(); strings.Contains(out, "trap -- ") {
				t.Errorf("a DEBUG trap is left:\n%q", tailOf(out, 2000))
			}
		})
	}
}

// recordsAfterRearm runs commands in s whose hooks were re-armed and checks
// that each was recorded with its status, and that $_ is the shell's own.
func recordsAfterRearm(t *testing.T, s *session) {
	t.Helper()
	s.run("echo one two")
	s.run(`echo "[$_]"`)
	s.waitFor("$_ kept", func(out string) bool { return strings.Contains(out, "[two]") })
	s.run("false")
	s.waitStatus(1)
	s.run("echo done")
	check(t, s, s.events("echo done"), []command{{cmd: "echo one two"}, {cmd: `echo "[$_]"`}, {cmd: "false", exit: 1}, {cmd: "echo done"}})
}
