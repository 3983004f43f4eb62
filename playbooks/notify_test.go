package playbooks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
)

func TestNotifyTargetsDecode(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, `
version: 1
name: n
spawn: {command: [x]}
notify:
  - url: "ntfy://ntfy.sh/${TOPIC}?title=${TITLE:-clai}"
    on: [done, question, done]
    rate: {max: 3, per: 30s}
    dedup: 0
  - webhook: {url: "https://${HOOK_HOST}/hook", secret: "file:hook.key"}
    timeout: 2s
    dashboard_link: false
  - command: [notify-me, -u]
  - desktop: true
`)
	if len(pb.Notify) != 4 {
		t.Fatalf("%d targets, want 4", len(pb.Notify))
	}
	u, w, c, d := pb.Notify[0], pb.Notify[1], pb.Notify[2], pb.Notify[3]
	if u.Kind != playbooks.NotifyURL || !slices.Equal(u.On, []playbooks.NotifyEvent{"done", "question"}) ||
		u.RateMax != 3 || u.RatePer != 30*time.Second || u.Dedup != 0 || u.Timeout != playbooks.DefaultNotifyTimeout {
		t.Errorf("url target: %+v", u)
	}
	if got := u.Env(); !slices.Equal(got, []string{"TOPIC"}) {
		t.Errorf("url target reads %q from the environment, want only TOPIC (TITLE has a default)", got)
	}
	if w.Kind != playbooks.NotifyWebhook || w.Webhook.Secret == nil || w.Webhook.Secret.Source != playbooks.SecretFile ||
		w.Timeout != 2*time.Second || !slices.Equal(w.Env(), []string{"HOOK_HOST"}) {
		t.Errorf("webhook target: %+v %+v", w, w.Webhook)
	}
	if !w.NoDashboardLink || u.NoDashboardLink {
		t.Errorf("dashboard_link: false is the webhook's alone: %v, %v", w.NoDashboardLink, u.NoDashboardLink)
	}
	if c.Kind != playbooks.NotifyCommand || !slices.Equal(c.Command, []string{"notify-me", "-u"}) {
		t.Errorf("command target: %+v", c)
	}
	if d.Kind != playbooks.NotifyDesktop || !d.Desktop || !slices.Equal(d.On, playbooks.DefaultNotifyOn()) ||
		d.Wants(playbooks.NotifyDone) || !d.Wants(playbooks.NotifyQuestion) {
		t.Errorf("desktop target: %+v", d)
	}
}

// TestNotifyURLNeverQuoted: a URL that does not parse may hold a token; the
// finding names the place, never the URL.
func TestNotifyURLNeverQuoted(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"ntfy://u:s3cr3t-t0ken@x/${T", "%zz-s3cr3t-t0ken", "ntfy://u:s3cr3t-t0ken@x/${}"} {
		_, findings := playbooks.Parse("n.yaml", []byte("version: 1\nname: n\nspawn: {command: [x]}\nnotify:\n  - url: \""+url+"\"\n"))
		if !findings.HasErrors() {
			t.Errorf("%q: no error", url)
		}
		if s := findings.Error(); strings.Contains(s, "s3cr3t") {
			t.Errorf("%q: the finding quotes the URL: %s", url, s)
		}
	}
}

func TestConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "clai", "config.yaml")
	if got := playbooks.ConfigPath([]string{"XDG_CONFIG_HOME=" + dir, "HOME=/nowhere"}); got != path {
		t.Errorf("ConfigPath with XDG_CONFIG_HOME = %q, want %q", got, path)
	}
	if got := playbooks.ConfigPath([]string{"XDG_CONFIG_HOME=relative", "HOME=/home/u"}); got != "/home/u/.config/clai/config.yaml" {
		t.Errorf("ConfigPath with a relative XDG_CONFIG_HOME = %q, want the one under HOME", got)
	}
	cfg, err := files.LoadConfig(path)
	if err != nil || len(cfg.Notify) != 0 {
		t.Fatalf("a config file that is not there: %v, %+v", err, cfg)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// The config file is the place for tokens: no literal-secret finding.
	src := "notify:\n  - url: \"telegram://123:AAH-token@telegram?chats=42\"\n    on: [failed]\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, findings := playbooks.ParseConfig(path, []byte(src))
	if cfg == nil || len(findings) != 0 || len(cfg.Notify) != 1 || !cfg.Notify[0].FromConfig {
		t.Fatalf("config: %+v, findings %v", cfg, findings)
	}
	if err := os.WriteFile(path, []byte("notfy: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = files.LoadConfig(path)
	if err == nil || !strings.Contains(err.Error(), `config.yaml:1:1: error: unknown key "notfy" in the config file, did you mean "notify"?`) {
		t.Errorf("a misspelt key: %v", err)
	}
}

// TestLintConfig: the config file's notify: list gets a playbook's findings,
// each at its file:line:col with a hint, missing-env included; no file is no
// finding.
func TestLintConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if findings, _, _, found := files.LintConfig(path, nil); found || len(findings) != 0 {
		t.Fatalf("no file: found %v, %v", found, findings)
	}
	src := "notify:\n" +
		"  - url: \"ntfyy://ntfy.sh/alerts\"\n" +
		"  - url: \"ntfy://ntfy.sh/${TOPIC}\"\n" +
		"    timeout: 9m\n" +
		"  - url: \"telegram://123:AAH-token@telegram?chats=42\"\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	findings, got, _, found := files.LintConfig(path, []string{"HOME=/nowhere"})
	if !found || string(got) != src {
		t.Fatalf("found %v, source %q", found, got)
	}
	var lines []string
	for _, f := range findings {
		if f.Hint == "" {
			t.Errorf("no hint: %v", f)
		}
		lines = append(lines, fmt.Sprintf("%s:%d:%d %s %s", filepath.Base(f.Pos.File), f.Pos.Line, f.Pos.Col, f.Severity, f.Rule))
	}
	want := []string{"config.yaml:2:10 error notify", "config.yaml:4:14 error notify"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s\n%v", strings.Join(lines, "\n"), strings.Join(want, "\n"), findings)
	}
	// As for a playbook, missing-env is checked once the file has no error.
	src = "notify:\n  - url: \"ntfy://ntfy.sh/${TOPIC}\"\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	findings, _, _, _ = files.LintConfig(path, []string{"HOME=/nowhere"})
	if len(findings) != 1 || findings[0].Rule != "missing-env" || findings[0].Pos.Line != 2 || findings[0].Pos.Col != 10 {
		t.Errorf("a ${TOPIC} not set: %v", findings)
	}
	if findings, _, _, _ = files.LintConfig(path, []string{"TOPIC=alerts"}); len(findings) != 0 {
		t.Errorf("with TOPIC set: %v", findings)
	}
}
