package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	expect "github.com/Netflix/go-expect"
	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/internal/testprog"
)

// These tests drive clai itself through a terminal, as a person would: go-expect's
// Console is the terminal, and clai runs with it as its controlling terminal.

// terminalRun starts clai in a fresh terminal and returns the console.
func terminalRun(t *testing.T, playbook string, args ...string) (*expect.Console, *claiProcess, *bytes.Buffer) {
	t.Helper()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	dir := t.TempDir()
	pb := filepath.Join(dir, "pb.yaml")
	if err := os.WriteFile(pb, []byte(playbook), 0o644); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	c, err := expect.NewConsole(expect.WithDefaultTimeout(20*time.Second), expect.WithStdout(&screen))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	p := startOnConsole(t, c, bin, append(append([]string{"run", "--log", filepath.Join(dir, "run.log")}, args...), pb)...)
	return c, p, &screen
}

// startOnConsole starts bin with args in a session of its own whose terminal is
// c, and waits for it in the background; the test's end kills what is left.
func startOnConsole(t *testing.T, c *expect.Console, bin string, args ...string) *claiProcess {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Tty(), c.Tty(), c.Tty()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &claiProcess{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return p
}

// claiProcess is a clai started by terminalRun, waited for in the background.
type claiProcess struct {
	cmd  *exec.Cmd
	done chan error
}

func waitExit(t *testing.T, p *claiProcess) int {
	t.Helper()
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatal("clai did not end")
		return -1
	}
}

func readLog(t *testing.T, p *claiProcess) string {
	t.Helper()
	data, err := os.ReadFile(p.cmd.Args[3])
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// canonical reports whether the terminal is back in cooked mode.
func canonical(t *testing.T, c *expect.Console) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(c.Tty().Fd()), ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ICANON != 0 && tio.Lflag&unix.ECHO != 0
}

func TestTerminalPassthrough(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	c, cmd, _ := terminalRun(t, fmt.Sprintf(`
version: 1
name: passthrough
spawn: {command: [%q, -q, "First: ", -q, "Second: "]}
steps:
  - {expect: "First:", line: "by clai"}
  - expect: eof
`, prompter), "--log-level", "debug")
	if _, err := c.ExpectString("got: by clai"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("Second: "); err != nil {
		t.Fatal(err)
	}
	// No rule answers the second question: the person does.
	if _, err := c.Send("by hand\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("got: by hand"); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d\n%s", code, readLog(t, cmd))
	}
	if !canonical(t, c) {
		t.Error("the terminal was left in raw mode")
	}
	log := readLog(t, cmd)
	if !strings.Contains(log, `"event":"input"`) {
		t.Errorf("no input event in the log:\n%s", log)
	}
	if strings.Contains(log, "by hand") {
		t.Errorf("the log shows what the person typed:\n%s", log)
	}
}

func TestTerminalCtrlCGoesManualTwiceEnds(t *testing.T) {
	t.Parallel()
	c, cmd, _ := terminalRun(t, `
version: 1
name: ctrl-c
spawn:
  shell: 'trap "" INT; echo ready; while :; do sleep 1; done'
`)
	if _, err := c.ExpectString("ready"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send("\x03"); err != nil {
		t.Fatal(err)
	}
	// The program ignores Ctrl-C; clai is now in MANUAL. A second one within a
	// second ends the run.
	if _, err := c.Send("\x03"); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, readLog(t, cmd))
	}
	log := readLog(t, cmd)
	for _, want := range []string{`"reason":"Ctrl-C from the user"`, `"state":"manual"`, `"reason":"Ctrl-C twice"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	if !canonical(t, c) {
		t.Error("the terminal was left in raw mode")
	}
}

func TestTerminalCtrlCReachesTheProgram(t *testing.T) {
	t.Parallel()
	silent := testprog.Build(t, "silent")
	c, cmd, _ := terminalRun(t, fmt.Sprintf("version: 1\nname: x\nspawn: {command: [%q]}\n", silent))
	if _, err := c.ExpectString("ready"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send("\x03"); err != nil {
		t.Fatal(err)
	}
	// The program dies of the interrupt while clai is in MANUAL: exit 4.
	if code := waitExit(t, cmd); code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, readLog(t, cmd))
	}
	if !canonical(t, c) {
		t.Error("the terminal was left in raw mode")
	}
}

func TestTerminalSizeFollows(t *testing.T) {
	t.Parallel()
	echo := testprog.Build(t, "echo")
	c, cmd, _ := terminalRun(t, fmt.Sprintf("version: 1\nname: x\nspawn: {command: [%q]}\n", echo))
	// Resize the terminal itself (an *os.File around the console's descriptor
	// would close it when collected).
	if err := unix.IoctlSetWinsize(int(c.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 33, Col: 101}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("> "); err != nil {
		t.Fatal(err)
	}
	// The size is read when clai starts or on SIGWINCH; ask until it shows.
	askUntil(t, c, "size\r", expect.String("> "), "33 101")
	if _, err := c.Send("quit\r"); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d\n%s", code, readLog(t, cmd))
	}
}

// askUntil sends ask and reads up to answer until what was read holds want:
// SIGWINCH reaches clai in its own time, so a new size shows after a while.
func askUntil(t *testing.T, c *expect.Console, ask string, answer expect.ExpectOpt, want string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		if _, err := c.Send(ask); err != nil {
			t.Fatal(err)
		}
		got, err := c.Expect(answer, expect.WithTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q: %q", want, got)
		}
	}
}

// In a terminal, clai's own messages start on a line of their own: after output
// that stopped mid-line (a prompt) clai ends that line first; after a whole line
// it adds no empty one.
func TestTerminalMessagesStartOnAFreshLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, printf, dryRun, until, want string
	}{
		{"a timeout after a prompt", `Name: `, "", "waited 1s", `Name: \r+\nclai: timeout: `},
		{"a timeout after a whole line", `done\n`, "", "waited 1s", `done\r\nclai: timeout: `},
		{"a dry run's notice after a prompt", `Continue? [y/n] `, "--dry-run", "matched", `\[y/n\] \r+\nclai: would send `},
		{"a dry run's notice after a whole line", `Continue? [y/n]\n`, "--dry-run", "matched", `\[y/n\]\r\nclai: would send `},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if c.dryRun != "" {
				args = append(args, c.dryRun)
			}
			cons, p, screen := terminalRun(t, fmt.Sprintf(`
version: 1
name: fresh
spawn: {command: [sh, -c, "printf '%s'; exec sleep 100"]}
rules:
  - {name: yes, match: "[y/n]", line: "y", limit: 1}
steps:
  - {expect: never printed, timeout: 1s}
`, c.printf), args...)
			if _, err := cons.ExpectString(c.until); err != nil {
				t.Fatalf("%v\n%q", err, screen.String())
			}
			if code := waitExit(t, p); code != 124 {
				t.Fatalf("exit %d, want 124\n%q", code, screen.String())
			}
			if !regexp.MustCompile(c.want).MatchString(screen.String()) {
				t.Errorf("the terminal shows %q, want %q in it", screen.String(), c.want)
			}
		})
	}
}

// TestTerminalHandOverIsLoud: when a danger rule hands the program to the
// person, clai says so at once on a line of its own, naming the rule and the
// text, and the person drives: what they type reaches the program.
func TestTerminalHandOverIsLoud(t *testing.T) {
	t.Parallel()
	danger := testprog.Build(t, "danger")
	c, cmd, _ := terminalRun(t, fmt.Sprintf(`version: 1
name: x
spawn: {command: [%q]}
rules:
  - {name: proceed, match: "Proceed? [y/N]", line: "y", limit: 1}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`, danger))
	// The danger line may arrive in a read of its own, before the prompt: the
	// message follows whatever was shown, on a line of its own.
	shown, err := c.ExpectString("you drive now")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(^|\n)clai: MANUAL: danger rule "wipe" matched "rm -rf /`).MatchString(shown) {
		t.Fatalf("the hand-over is not said on a line of its own: %q", shown)
	}
	if !strings.Contains(shown, "Proceed? [y/N] ") {
		if _, err := c.ExpectString("Proceed? [y/N] "); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Send("n\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("aborted"); err != nil {
		t.Fatal(err)
	}
	// The person took the hand-over and the program ended by itself: the
	// run ends as it did.
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, readLog(t, cmd))
	}
}
