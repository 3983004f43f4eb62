package daemon_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/secretfilter"
	"github.com/clai-sh/clai/runner/suggest/store"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

// randomText is n random letters and digits.
func randomText(t *testing.T, n int) string {
	t.Helper()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return string(b)
}

// secretCommands are commands that each hold one of secrets, of every kind
// the filter knows, and the user pattern corp-NNNNNN.
func secretCommands(t *testing.T) (cmds, secrets []string) {
	t.Helper()
	add := func(secret, format string) {
		secrets = append(secrets, secret)
		cmds = append(cmds, strings.ReplaceAll(format, "SECRET", secret))
	}
	add("ghp_"+randomText(t, 36), "export GITHUB_TOKEN=SECRET")
	add("glpat-"+randomText(t, 20), "git push https://user:SECRET@gitlab.example.com/x.git")
	add("S3cretPass"+randomText(t, 6), "mysql -uroot -pSECRET shop")
	add("Bearer"+randomText(t, 30), `curl -H "Authorization: SECRET" https://api.example.com`)
	add("AKIA"+strings.ToUpper(randomText(t, 16)), "AWS_ACCESS_KEY_ID=SECRET aws s3 ls")
	add("pw"+randomText(t, 10), "PGPASSWORD=SECRET psql -h db")
	add("hunter"+randomText(t, 8), "sshpass -p 'SECRET' ssh deploy@host")
	add("Zq9"+randomText(t, 40), "deploy-tool --apply SECRET")
	add("corp-"+strings.Repeat("7", 6), "login --id SECRET")
	return cmds, secrets
}

// realConfig is a daemon's config with the real understander and ranker,
// the user pattern corp-[0-9]{6}, and its spool read only when asked.
func realConfig(t *testing.T) daemon.Config {
	t.Helper()
	cfg := config(t)
	cfg.Understander = daemon.NewUnderstander(tasks.Options{})
	cfg.Ranker = nil
	cfg.SpoolEvery = time.Hour
	f, err := secretfilter.Parse([]string{`corp-[0-9]{6}`})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Secrets = f
	return cfg
}

// filesHolding are the files under dir whose bytes hold any of secrets.
func filesHolding(t *testing.T, dir string, secrets []string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				found = append(found, filepath.Base(path)+" holds "+s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestCommandsWithASecretAreInNoFileOfTheDaemonAndNeverSuggested(t *testing.T) {
	t.Parallel()
	cfg := realConfig(t)
	d := start(t, cfg)
	cmds, secrets := secretCommands(t)
	now := time.Now().Add(-time.Hour)
	at := func(i int) time.Time { return now.Add(time.Duration(i) * time.Second) }
	// Each secret command twice, between ordinary ones, over POST /ingest
	// and through the spool, as each shell's hooks send them.
	var lines []string
	var spool []byte
	i := 0
	for range 2 {
		for _, c := range cmds {
			for _, cmd := range []string{"git status", c, "make test"} {
				i++
				lines = append(lines, event("s-ingest", "/tmp", cmd, at(i)))
				spool = append(spool, spoolRecord(t, "d-00000000000000aa", "/tmp", cmd, at(i))...)
			}
		}
	}
	if accepted, skipped := d.ingest(t, lines...); accepted != 2*2*len(cmds) || skipped != 2*len(cmds) {
		t.Errorf("ingest took %d and skipped %d, want %d and %d", accepted, skipped, 4*len(cmds), 2*len(cmds))
	}
	path, err := hookproto.SpoolFile(filepath.Dir(cfg.Socket), "d-00000000000000aa")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, spool, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, req := range []daemon.SuggestRequest{
		{Session: "s-ingest", Cwd: "/tmp", Limit: daemon.MaxLimit},
		{Session: "s-ingest", Cwd: "/tmp", LastCmd: "git status", Limit: daemon.MaxLimit},
		{Session: "s-ingest", Cwd: "/tmp", LastCmd: cmds[0], Limit: daemon.MaxLimit},
	} {
		reply, err := d.client.Suggest(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(reply.Suggestions) == 0 {
			t.Fatal("no suggestion: the ordinary commands were not learnt")
		}
		for _, s := range reply.Suggestions {
			if strings.Contains(s.Command+s.Template+strings.Join(s.Reasons, " "), "SECRET") || cfg.Secrets.Secret(s.Command) {
				t.Errorf("suggested %+v", s)
			}
			for _, secret := range secrets {
				if strings.Contains(s.Command+s.Template+strings.Join(s.Reasons, " "), secret) {
					t.Errorf("suggested %+v, which holds %s", s, secret)
				}
			}
		}
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 * 2 * len(cmds)); h.SecretDropped != want {
		t.Errorf("commands_secret_dropped %d, want %d", h.SecretDropped, want)
	}
	if want := int64(2 * 2 * 2 * len(cmds)); h.Accepted != want {
		t.Errorf("events_accepted %d, want the %d ordinary commands", h.Accepted, want)
	}
	state := filepath.Dir(cfg.Database)
	if found := filesHolding(t, state, secrets); len(found) > 0 {
		t.Errorf("while the daemon runs: %s", strings.Join(found, "; "))
	}
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	if found := filesHolding(t, state, secrets); len(found) > 0 {
		t.Errorf("once the daemon stopped: %s", strings.Join(found, "; "))
	}
	if found := filesHolding(t, state, []string{"git status", "make test"}); len(found) == 0 {
		t.Error("the ordinary commands are in no file of the state folder: the grep sees nothing")
	}
}

func TestADatabaseWrittenBeforeTheFilterNeverSuggestsItsSecrets(t *testing.T) {
	t.Parallel()
	cfg := realConfig(t)
	cmds, secrets := secretCommands(t)
	// What a daemon with no filter stored: each secret command after git
	// status, and ls after each, in the session old.
	st, err := store.Open(t.Context(), cfg.Database, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := cfg.Understander
	var events []store.Event
	at := time.Now().Add(-time.Hour)
	for range 3 {
		for _, c := range append(cmds, "git status", "ls") {
			at = at.Add(time.Second)
			un := u.Command(c)
			events = append(events, store.Event{Kind: store.Command, Session: "old", Shell: "bash", At: at, Cwd: "/tmp", Cmd: c, Template: un.Template, Args: un.Args, Tool: un.Tool, Duration: -1})
		}
	}
	events = append(events, store.Event{Kind: store.Command, Session: "old", Shell: "bash", At: at.Add(time.Second), Cwd: "/tmp", Cmd: cmds[0], Template: u.Command(cmds[0]).Template, Duration: -1})
	if err := st.Apply(t.Context(), events); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	d := start(t, cfg)
	check := func(what string, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %s: %s", what, s, text)
			}
		}
	}
	for _, req := range []daemon.SuggestRequest{
		{Session: "old", Cwd: "/tmp", Limit: daemon.MaxLimit},
		{Cwd: "/tmp", LastCmd: "git status", Limit: daemon.MaxLimit},
		{Cwd: "/tmp", LastCmd: cmds[2], Limit: daemon.MaxLimit},
	} {
		reply, err := d.client.Suggest(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(reply.Suggestions) == 0 {
			t.Fatalf("%+v: no suggestion, want the ordinary ones", req)
		}
		for _, s := range reply.Suggestions {
			check("a suggestion", s.Command+" "+s.Template+" "+strings.Join(s.Reasons, " "))
		}
	}
	for _, path := range []string{"/debug/scores?limit=1000", "/debug/transitions?limit=1000"} {
		var v any
		if err := d.client.Get(context.WithoutCancel(t.Context()), path, &v); err != nil {
			t.Fatal(err)
		}
		check(path, strings.ReplaceAll(fmtJSON(v), `\u0026`, "&"))
	}
}

// fmtJSON is v as the text it was read from, near enough to find a secret
// in it.
func fmtJSON(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			b.WriteString(x + "\n")
		}
	}
	walk(v)
	return b.String()
}
