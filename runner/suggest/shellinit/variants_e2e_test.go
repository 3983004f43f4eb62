//go:build e2e

package shellinit_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/hookproto/hooktest"
)

// TestSessionEnd: zsh and fish tell the daemon when they end (bash leaves
// its EXIT trap to the user), and none records exit as a command.
func TestSessionEnd(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"zsh", "fish"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := startSession(t, setups[name], nil)
			s.run("echo bye")
			s.events("echo bye")
			s.type_("exit\r")
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			defer cancel()
			// The session's end comes by the socket, the commands by the
			// spool: it may come first.
			ended := func(e hookproto.Event) bool { return e.Type == hookproto.TypeSessionEnd }
			events, err := s.daemon.WaitFor(ctx, func(es []hookproto.Event) bool {
				return slices.ContainsFunc(es, ended)
			})
			if err != nil {
				t.Fatalf("%v: %+v", err, events)
			}
			first, end := events[0], events[slices.IndexFunc(events, ended)]
			if end.PID != first.PID || end.Session != "d-"+strconv.Itoa(first.PID) {
				t.Fatalf("session_end %+v for session_start %+v", end, first)
			}
			// What the shell wrote before it ended is in the spool now.
			s.daemon.TakeSpool()
			if cmds := hooktest.Commands(s.daemon.Events()); !slices.Equal(cmds, []string{"echo bye"}) {
				t.Errorf("the daemon heard %q, want echo bye alone", cmds)
			}
		})
	}
}

// TestZshCommandWithNULForgesNoRecord: a zsh command line may hold NUL
// bytes, which end a spool record's fields; pasted with a record after
// them, they forge nothing.
func TestZshCommandWithNULForgesNoRecord(t *testing.T) {
	t.Parallel()
	s := startSession(t, setups["zsh"], nil)
	forged := ": x\x00\nclai1\x00command\x00zsh\x00FORGED\x001\x000\x000\x000\x00/etc\x00rm -rf ~"
	s.paste(forged)
	s.run("echo done")
	for _, e := range s.events("echo done") {
		if e.Session == "FORGED" || e.Cwd == "/etc" || strings.ContainsRune(e.Cmd, 0) {
			t.Errorf("the daemon heard %+v", e)
		}
	}
	if bad := s.daemon.Bad(); len(bad) != 0 {
		t.Errorf("the daemon could not take %q", bad)
	}
}

// TestZshHookArraysReplacedLater: an rc file that sets zsh's hook arrays
// anew after the hooks (precmd_functions=(), a framework's own list) leaves
// the recording on: the hooks put themselves back, and the next prompt says
// so once.
func TestZshHookArraysReplacedLater(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, later string }{
		{name: "emptied", later: "precmd_functions=()\npreexec_functions=()\nzshexit_functions=()\nprecmd() { print -n \"<U:$?>\" }\n"},
		{name: "a list of the user's", later: "user_precmd() { print -n \"<U:$?>\" }\nprecmd_functions=(user_precmd)\npreexec_functions=(true)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			setup := setups["zsh"]
			setup.rc = func(hook string) string {
				return "setopt nounset ksharrays\nPROMPT='<P:%?>'\nRPROMPT=\n" +
					"eval \"$(<" + hook + ")\"\n" + c.later + "x=1\n"
			}
			s := startSession(t, setup, nil)
			recordsAfterRearm(t, s)
			const said = "clai: precmd_functions or preexec_functions were replaced after clai init; recording re-armed"
			out := s.output()
			if n := strings.Count(out, said); n != 1 {
				t.Errorf("the shell said %q %d times, want once:\n%q", said, n, tailOf(out, 2000))
			}
			// The guard is gone once a prompt comes with the hooks in place.
			s.run("trap; echo traps-shown")
			s.waitFor("the traps", func(out string) bool { return strings.Contains(out, "traps-shown\r\n") })
			if out := s.output(); strings.Contains(out, "DEBUG") {
				t.Errorf("a DEBUG trap is left:\n%q", tailOf(out, 2000))
			}
		})
	}
}

// TestFishHandlerErasedLater: a config that erases one of the hooks' event
// handlers after the hooks leaves the recording on: the other defines it
// again and says so once. With preexec erased, the first command is lost.
func TestFishHandlerErasedLater(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		erased string
		lost   bool
	}{
		{erased: "_clai_hook_postexec"},
		{erased: "_clai_hook_exit"},
		{erased: "_clai_hook_preexec", lost: true},
	} {
		t.Run(c.erased, func(t *testing.T) {
			t.Parallel()
			setup := setups["fish"]
			rc := setup.rc
			setup.rc = func(hook string) string { return rc(hook) + "functions -e " + c.erased + "\n" }
			s := startSession(t, setup, nil)
			s.run("echo one")
			s.run("false")
			s.waitStatus(1)
			s.run("echo done")
			want := []command{{cmd: "echo one"}, {cmd: "false", exit: 1}, {cmd: "echo done"}}
			if c.lost {
				want = want[1:]
			}
			check(t, s, s.events("echo done"), want)
			const said = "clai: a clai hook function was erased after clai init; recording re-armed"
			if n := strings.Count(s.output(), said); n != 1 {
				t.Errorf("the shell said %q %d times, want once:\n%q", said, n, tailOf(s.output(), 2000))
			}
		})
	}
}
