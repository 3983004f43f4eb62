package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/suggest/daemon"
)

// withHistoryConfig adds to e's environment a user config file of text.
func withHistoryConfig(t *testing.T, e *sessionsEnv, text string) {
	t.Helper()
	dir := filepath.Join(e.dir, "config")
	if err := os.MkdirAll(filepath.Join(dir, "clai"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clai", "config.yaml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+dir)
}

func TestADaemonRefusesASecretPatternThatDoesNotCompile(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	withHistoryConfig(t, e, "history:\n  secret_patterns: ['corp-[0-9']\n")
	d := e.spawnDaemon(t)
	err := <-d.exited
	d.exited <- err
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("clai daemon: %v, want exit 2\n%s", err, d.stderr)
	}
	if s := d.stderr.String(); !strings.Contains(s, "config.yaml:2:21: error: history.secret_patterns[0]: pattern \"corp-[0-9\": error parsing regexp") ||
		!strings.Contains(s, "does not load") {
		t.Fatalf("clai daemon said:\n%s", s)
	}
}

// TestSecretsTypedInEachShellAreInNoFileOfTheStateFolder types commands
// with secrets into bash, zsh and fish with clai's hooks, beside ordinary
// ones, and greps every file of the daemon's state folder (the database, its
// -wal and -shm) for the secrets' bytes.
func TestSecretsTypedInEachShellAreInNoFileOfTheStateFolder(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			secretsFromShell(t, shell)
		})
	}
}

func secretsFromShell(t *testing.T, shell string) {
	prog := testprog.RequireProgram(t, shell, shell)
	e := newSessionsEnv(t)
	withHistoryConfig(t, e, "history:\n  secret_patterns: ['corp-[0-9]{6}']\n")
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(testprog.BuildCommand(t, "./cmd/clai-hook"), filepath.Join(bin, "clai-hook")); err != nil {
		t.Fatal(err)
	}
	e.startDaemon(t)
	token := "ghp_" + strings.Repeat("Zx9Qw", 7) + "K"
	gitlab := "glpat-" + "Hq83kdPz0aLm29XvBn4e"
	password := "S3cretPass" + shell
	corp := "corp-424242"
	secrets := []string{token, gitlab, password, corp}
	exported := "export GITHUB_TOKEN=" + token
	if shell == "fish" {
		exported = "set -gx GITHUB_TOKEN " + token
	}
	script := strings.Join([]string{
		"cd " + shellQuote(e.dir),
		"echo ordinary-one",
		exported,
		"echo ordinary-two",
		"true https://user:" + gitlab + "@gitlab.example.com/x.git",
		// mysql need not be installed: the line is what is learnt.
		"mysql -uroot -p" + password + " shop 2>/dev/null; echo ordinary-three",
		"echo ordinary-four",
		"true --id " + corp,
		"echo 'Authorization: Bearer " + password + "' | true",
		"exit", "",
	}, "\n")
	argv, env := shellWithHooks(t, shell, home, e.bin)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sh := exec.CommandContext(ctx, prog, argv...)
	sh.Env = append(append(e.env, "HOME="+home, "TERM=dumb", "CLAI_HOOK_TIMEOUT_MS=20", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH")), env...)
	out := typeInTerminal(t, sh, script)
	c := daemon.NewClient(e.socket())
	// Asking reads the spool: the shell has ended, its hooks wrote it all.
	if _, err := c.Suggest(t.Context(), daemon.SuggestRequest{Cwd: e.dir, Limit: daemon.MaxLimit}); err != nil {
		t.Fatal(err)
	}
	h, err := c.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.SecretDropped < 5 {
		t.Errorf("commands_secret_dropped %d, want the 5 commands with a secret\n%q", h.SecretDropped, out)
	}
	events := dumpEvents(t, e)
	for _, want := range []string{"echo ordinary-one", "echo ordinary-two", "echo ordinary-four"} {
		if !strings.Contains(events, want) {
			t.Errorf("%q was not stored:\n%s\n%q", want, events, out)
		}
	}
	state := filepath.Join(e.dir, "clai")
	err = filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %s", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
