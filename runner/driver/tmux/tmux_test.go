//go:build e2e

package tmux_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/driver/tmux"
)

// readUntil reads the pane's redraws until one shows want.
func readUntil(t *testing.T, p *tmux.Pane, want string) string {
	t.Helper()
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n, err := p.Read(buf)
		if bytes.Contains(buf[:n], []byte(want)) {
			return string(buf[:n])
		}
		if err != nil {
			t.Fatalf("read: %v before %q", err, want)
		}
	}
	t.Fatalf("no %q on the pane", want)
	return ""
}

// readToEnd reads the pane's redraws until the end of its program.
func readToEnd(t *testing.T, p *tmux.Pane) {
	t.Helper()
	buf := make([]byte, 4096)
	for {
		if _, err := p.Read(buf); err == io.EOF {
			return
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	p, err := tmux.Start(context.Background(), tmux.Options{
		Session: "s", Socket: sock, Rows: 10, Cols: 60,
		Argv: []string{"sh", "-c", `printf "Ship it? "; read a; echo "shipped $a"; exit 3`},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	screen := readUntil(t, p, "Ship it?")
	if !strings.HasPrefix(screen, "\x1b[H\x1b[2J") {
		t.Fatalf("not a redraw: %q", screen)
	}
	if _, err := p.Write([]byte("yes\r")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "shipped yes")
	readToEnd(t, p)
	st, err := p.Wait()
	if err != nil || st.Code != 3 {
		t.Fatalf("exit %v, %v; want 3", st, err)
	}
}

func TestTargetPaneIsNeverKilled(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	if out, err := exec.Command("tmux", "-L", sock, "new-session", "-d", "-s", "work", "-x", "60", "-y", "10", "sh", "-c", `printf "Name: "; read n; echo "hi $n"; sleep 60`).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	p, err := tmux.Start(context.Background(), tmux.Options{Target: "work:0.0", Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "Name:")
	if _, err := p.Write([]byte("gopher\r")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "hi gopher")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("tmux", "-L", sock, "has-session", "-t", "work").Run(); err != nil {
		t.Fatal("closing the driver ended the person's pane")
	}
}

func TestSessionProgramKilledBySignal(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	p, err := tmux.Start(context.Background(), tmux.Options{
		Session: "s", Socket: sock,
		Argv: []string{"sh", "-c", `echo going; kill -TERM $$`},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readToEnd(t, p)
	st, _ := p.Wait()
	if st.Code != 128+15 || st.Signal != "terminated" {
		t.Fatalf("exit %+v; want 143 terminated", st)
	}
}

// Keys go by name, so tmux encodes them as the program asked: a program in
// application-cursor mode gets ESC O B for Down although clai, reading the pane
// through capture-pane, cannot see that mode. Text arrives exactly, semicolons and
// leading dashes included.
func TestKeysFollowThePanesCursorMode(t *testing.T) {
	t.Parallel()
	p := startAppCursorPane(t)
	if _, err := p.Write([]byte("-a;b\x1b[B\r")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, `-   a   ;   b 033   O   B  \r`)
}

// Keystrokes reach the pane as they were typed: their text exactly, and each key
// by name, which tmux encodes as the program asked (ESC O B for down in
// application cursor mode, whatever AppCursor says).
func TestTypeNamesTheKeys(t *testing.T) {
	t.Parallel()
	p := startAppCursorPane(t)
	if err := p.Type(keys.Keystrokes{Data: []byte("-a;"), Keys: []keys.Key{"down", "tab", "enter"}}); err != nil {
		t.Fatal(err)
	}
	// The line od prints shows at once, whatever the bytes were.
	if screen := readUntil(t, p, `-   a   ;`); !strings.Contains(screen, `-   a   ; 033   O   B  \t  \r`) {
		t.Fatalf("the pane got something else:\n%s", screen)
	}
}

// startAppCursorPane starts a pane whose program turns on application cursor
// mode, shows "ready", then prints the first 8 bytes it reads with od.
func startAppCursorPane(t *testing.T) *tmux.Pane {
	t.Helper()
	sock := testprog.TmuxServer(t)
	p, err := tmux.Start(context.Background(), tmux.Options{
		Session: "s", Socket: sock, Rows: 10, Cols: 60,
		Argv: []string{"sh", "-c", `stty raw -echo; printf '\033[?1hready\r\n'; head -c 8 | od -An -c; sleep 60`},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	readUntil(t, p, "ready")
	return p
}

// A person's tmux.conf may number windows and panes from 1: the session's pane is
// found by its id, not as NAME:0.0.
func TestSessionWithBaseIndexOne(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	for _, args := range [][]string{
		{"new-session", "-d", "-s", "mine"},
		{"set-option", "-g", "base-index", "1"},
		{"set-option", "-g", "pane-base-index", "1"},
	} {
		if out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	p, err := tmux.Start(context.Background(), tmux.Options{
		Session: "s", Socket: sock, Argv: []string{"sh", "-c", `printf "Name: "; read n; echo "hi $n"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntil(t, p, "Name:")
	if _, err := p.Write([]byte("gopher\r")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "hi gopher")
	readToEnd(t, p)
	if st, _ := p.Wait(); st.Code != 0 {
		t.Fatalf("exit %+v", st)
	}
}

// A target pane that closes ends the output with a status that says so, even
// when a new pane takes its place at the same address: the pane clai drives is
// the one it was given, not whatever "work:0.0" names later.
func TestTargetPaneThatClosesEndsTheOutput(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	tmuxRun := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
	}
	tmuxRun("new-session", "-d", "-s", "work", "-x", "60", "-y", "10", "sh", "-c", `echo first; sleep 60`)
	p, err := tmux.Start(context.Background(), tmux.Options{Target: "work:0.0", Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	readUntil(t, p, "first")
	tmuxRun("new-window", "-d", "-t", "work:1", "sleep 60")
	tmuxRun("kill-window", "-t", "work:0")
	tmuxRun("new-window", "-d", "-t", "work:0", "sh", "-c", `echo second; sleep 60`)
	buf := make([]byte, 4096)
	for {
		n, err := p.Read(buf)
		if strings.Contains(string(buf[:n]), "second") {
			t.Fatal("the driver reads the pane that took the closed one's place")
		}
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	st, _ := p.Wait()
	if !st.PaneClosed || st.String() != "the pane closed" {
		t.Fatalf("exit %+v (%s); want the pane closed", st, st)
	}
}

func TestTargetThatIsNoPane(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	if out, err := exec.Command("tmux", "-L", sock, "new-session", "-d", "-s", "work", "sleep 60").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, err := tmux.Start(context.Background(), tmux.Options{Target: "nosuch:0.0", Socket: sock})
	if err == nil || !strings.Contains(err.Error(), "tmux pane nosuch:0.0: no such pane") {
		t.Fatalf("err = %v", err)
	}
}

// tmux changes a . in a session name to _: the session clai started is ended
// by its id all the same, and never left behind.
func TestSessionIsEndedWhateverTmuxMadeOfItsName(t *testing.T) {
	t.Parallel()
	sock := testprog.TmuxServer(t)
	if out, err := exec.Command("tmux", "-L", sock, "new-session", "-d", "-s", "keep", "sleep 60").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	p, err := tmux.Start(context.Background(), tmux.Options{Session: "my.run", Socket: sock, Argv: []string{"sh", "-c", "echo ready; sleep 60"}})
	if err != nil {
		t.Fatal(err)
	}
	readUntil(t, p, "ready")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("tmux", "-L", sock, "list-sessions", "-F", "#{session_name}").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "keep" {
		t.Fatalf("sessions after Close: %q, %v; want only keep", out, err)
	}
}
