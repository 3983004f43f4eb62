package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/leakcheck"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/cast"
)

// leakPlaybook answers the secrets fake's block with a line that repeats what
// matched, then waits in vain, so clai ends at a timeout and says why on stderr.
const leakPlaybook = `
version: 1
name: leaks
spawn: {command: [%q, -way, %s, -filler, "20"]}
settings: {settle: 50ms, min_send_interval: 0s}
steps:
  - expect: {regex: '(?s)BEGIN(?P<msg>.*)END'}
    line: "noted {{ match.msg }}"
  - expect: "NEVER SHOWN"
    timeout: 400ms
rules:
  - name: vault
    match: "Vault password:"
    secret: env:CLAI_SECRET
`

// What clai run prints and writes (the mirror, the messages on stderr, the
// log, the report in each format, the recording) and what a replay of an
// unmasked recording prints and writes never show the secret.
func TestRunAndReplayNeverShowTheSecret(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	fake := testprog.Build(t, "secrets")
	r := rand.New(rand.NewPCG(11, 5))
	for _, way := range []string{"plain", "colour", "crlf"} {
		secret := leakcheck.Secret(r)
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pb := filepath.Join(dir, "leaks.yaml")
			if err := os.WriteFile(pb, fmt.Appendf(nil, leakPlaybook, fake, way), 0o644); err != nil {
				t.Fatal(err)
			}
			clai := func(args ...string) {
				t.Helper()
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(bin, args...)
				cmd.Env = append(os.Environ(), "CLAI_SECRET="+secret)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if code := cmd.ProcessState.ExitCode(); code != 124 {
					t.Errorf("clai %s: %v, want exit 124 (a timeout)\n%s", strings.Join(args, " "), err, stderr.String())
				}
				check(t, secret, "stdout of clai "+args[1], stdout.String())
				check(t, secret, "stderr of clai "+args[1], stderr.String())
			}
			clai("run", "--record", filepath.Join(dir, "run.cast"), "--log", filepath.Join(dir, "run.log"), "--report", filepath.Join(dir, "run.json"), pb)
			// The audit flow: a recording clai did not mask (asciinema's),
			// replayed with a report in each format.
			unmasked := filepath.Join(dir, "unmasked.cast")
			writeUnmasked(t, unmasked, way, secret)
			for _, format := range []string{"json", "md", "html"} {
				clai("run", "--replay", unmasked, "--log", filepath.Join(dir, "replay.log"), "--report", filepath.Join(dir, "replay."+format), pb)
			}
			files, err := filepath.Glob(filepath.Join(dir, "*.*"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f == unmasked || f == pb {
					continue
				}
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				check(t, secret, filepath.Base(f), string(data))
			}
		})
	}
}

// writeUnmasked writes a recording of the secrets fake shown in way, as a
// recorder that masks nothing makes it.
func writeUnmasked(t *testing.T, path, way, secret string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := cast.NewWriter(f, cast.Header{Width: 80, Height: 24, Timestamp: time.Now().Unix()})
	if err != nil {
		t.Fatal(err)
	}
	crlf := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "\n", "\r\n"), "\r\r\n", "\r\n")
	}
	for _, ev := range []struct {
		at   time.Duration
		data string
	}{
		{10 * time.Millisecond, crlf(leakcheck.Block(way, secret, 80))},
		{100 * time.Millisecond, "noted " + crlf(secret) + "\r\n"},
		{120 * time.Millisecond, "\r\n" + crlf(leakcheck.Show(way, secret)) + "....\r\n"},
	} {
		if err := w.Output(ev.at, []byte(ev.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Marker(time.Second, "exit 0"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func check(t *testing.T, secret, name, text string) {
	t.Helper()
	if where := leakcheck.Find(text, secret); where != "" {
		t.Errorf("secret %q: the %s shows %s:\n%s", secret, name, where, text)
	}
}

// A password the person types at an echo-off prompt is a secret from then on:
// the program's own repetition of it is masked on the screen, in the recording,
// the log and the report.
func TestTerminalTypedPasswordIsASecret(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	dir := t.TempDir()
	rec, report := filepath.Join(dir, "run.cast"), filepath.Join(dir, "run.json")
	c, cmd, screen := terminalRun(t, fmt.Sprintf(`
version: 1
name: typed
spawn: {command: [%q, -q, "User: ", -q, "Password: ", -secret, "2"]}
steps:
  - {expect: "User:", line: "alice"}
  - expect: eof
`, prompter), "--record", rec, "--report", report, "--log-level", "debug")
	if _, err := c.ExpectString("Password: "); err != nil {
		t.Fatal(err)
	}
	const password = "Typed-Pa55word!"
	if _, err := c.Send(password + "\r"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("got: "); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExpectString("\n"); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d\n%s", code, readLog(t, cmd))
	}
	check(t, password, "screen", screen.String())
	check(t, password, "log", readLog(t, cmd))
	for _, f := range []string{rec, report} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(t, password, filepath.Base(f), string(data))
	}
	if !strings.Contains(screen.String(), "got: ******") {
		t.Errorf("the screen does not show the masked password:\n%q", screen.String())
	}
}

// The mirror holds back what could begin a secret, but not for ever: a prompt
// that ends in a character of a secret shows whole while the program waits.
func TestTerminalPromptEndingLikeASecretShows(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("why?-is-it-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, cmd, _ := terminalRun(t, fmt.Sprintf(`
version: 1
name: held
spawn: {command: [%q, -q, "Continue? "]}
steps:
  - expect: eof
rules:
  - name: token
    match: "Token:"
    secret: file:%s
`, prompter, filepath.Join(dir, "token")))
	if _, err := c.ExpectString("Continue?"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Send("yes\r"); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit %d\n%s", code, readLog(t, cmd))
	}
}
