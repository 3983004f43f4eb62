package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/notify"
)

// notifyPlaybook hands its one question over to a person; its ntfy target
// reads its password from the environment.
const notifyPlaybook = `
version: 1
name: notify-e2e
spawn: {command: [%q, -q, "Overwrite config.yaml? [y/n] "]}
settings: {settle: 100ms}
timeouts: {prompt: 2s}
danger:
  - name: overwrite
    match: "Overwrite config.yaml?"
notify:
  - url: "ntfy://clai:${NTFY_PASS}@%s/alerts?scheme=http"
    on: [danger, timeout, failed]
`

// A real clai run over a fake program reaches a question, a danger rule's
// hand-over: the fake ntfy server gets the question and its options, the user
// config file's command target the same as JSON, the run waits for an answer
// from elsewhere up to timeouts.prompt (a headless hand-over ends at once
// when nobody can answer), and the password of the URL shows nowhere.
func TestRunNotifiesAQuestion(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	prompter := testprog.Build(t, "prompter")
	type post struct {
		header http.Header
		body   string
	}
	posts := make(chan post, 16)
	ntfy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		posts <- post{r.Header.Clone(), string(body)}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"m1"}`))
	}))
	t.Cleanup(ntfy.Close)

	dir := t.TempDir()
	pb := filepath.Join(dir, "notify.yaml")
	host := strings.TrimPrefix(ntfy.URL, "http://")
	if err := os.WriteFile(pb, fmt.Appendf(nil, notifyPlaybook, prompter, host), 0o644); err != nil {
		t.Fatal(err)
	}
	got := filepath.Join(dir, "command.json")
	config := filepath.Join(dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("notify:\n  - command: [sh, -c, 'cat >> \"$0\"', %q]\n    on: [question]\n", got)
	// A config file others may read is warned of: it holds tokens.
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(config, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	const password = "ntfy-pa55word-e2e"
	logFile, report := filepath.Join(dir, "run.log"), filepath.Join(dir, "run.json")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--quiet", "--log", logFile, "--report", report, pb)
	cmd.Env = append(os.Environ(), "NTFY_PASS="+password, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()

	q := <-posts
	if q.header.Get("Title") != "clai: notify-e2e needs you (danger)" {
		t.Errorf("title %q", q.header.Get("Title"))
	}
	for _, want := range []string{"Overwrite config.yaml? [y/n]", "options: y, n", "clai answer "} {
		if !strings.Contains(q.body, want) {
			t.Errorf("the notification lacks %q:\n%s", want, q.body)
		}
	}
	var n notify.Notification
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("the config file's command target got nothing: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&n); err != nil || n.Question == nil || len(n.Question.Options) != 2 ||
		n.Question.Options[0].Label != "y" || n.Session.ID == "" || n.Question.Session != n.Session.ID {
		t.Errorf("the command target's JSON: %v\n%s", err, data)
	}
	// The question closed with the run: each target that had it is told.
	var c notify.Notification
	if err := dec.Decode(&c); err != nil || c.Event != notify.EventClosed || c.Closed == nil || c.Closed.Question != n.Question.ID {
		t.Errorf("the command target's close: %v\n%s", err, data)
	}
	if closed := <-posts; closed.header.Get("Title") != "clai: notify-e2e: question closed" || !strings.Contains(closed.body, "closed: the run ended") {
		t.Errorf("the close's title %q, body %q", closed.header.Get("Title"), closed.body)
	}
	// The run waited for an answer from elsewhere, then ended at the
	// prompt's timeout, and said so to the target that asked for it.
	end := <-posts
	if !strings.Contains(end.header.Get("Title"), "clai: notify-e2e ended") || !strings.Contains(stderr.String(), "within timeouts.prompt") {
		t.Errorf("the end's title %q; stderr:\n%s", end.header.Get("Title"), stderr.String())
	}
	if !strings.Contains(stderr.String(), "config.yaml may be read by other users (mode 0644)") {
		t.Errorf("no warning of the config file's mode:\n%s", stderr.String())
	}
	rep, _ := os.ReadFile(report)
	logData, _ := os.ReadFile(logFile)
	if !bytes.Contains(logData, []byte(notify.LogSent)) {
		t.Errorf("the log has no %s line:\n%s", notify.LogSent, logData)
	}
	for name, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(),
		"the log": string(logData), "the report": string(rep), "the notification": q.body + end.body + string(data)} {
		if strings.Contains(text, password) {
			t.Errorf("%s holds the password", name)
		}
	}
}

// A run of the user of a running clai dashboard puts its URL, with its
// token, in a question's notification, and nowhere else: not in the log,
// the report or the run's output.
func TestRunNotifiesTheDashboard(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	prompter := testprog.Build(t, "prompter")
	got := filepath.Join(e.dir, "notification.json")
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("notify:\n  - command: [sh, -c, 'cat >> \"$0\"', %q]\n    on: [question]\n", got)
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(e.dir, "ask.yaml")
	playbook := fmt.Sprintf("version: 1\nname: ask\nspawn: {command: [%q, -q, \"Proceed? [y/n] \"]}\n"+
		"settings: {settle: 100ms}\ntimeouts: {prompt: 1s}\n", prompter)
	if err := os.WriteFile(pb, []byte(playbook), 0o644); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"))
	dashURL := e.startDashboard(t)
	_, token, _ := strings.Cut(dashURL, "token=")

	logFile, report := filepath.Join(e.dir, "run.log"), filepath.Join(e.dir, "run.json")
	stdout, stderr, _ := e.clai(t, "run", "--quiet", "--log", logFile, "--report", report, pb)
	data, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("the command target got nothing: %v\n%s", err, stderr)
	}
	var n notify.Notification // the question's; its close follows
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&n); err != nil || n.Answer == nil || n.Answer.Dashboard != dashURL {
		t.Fatalf("the notification does not name the dashboard %s (%v):\n%s", dashURL, err, data)
	}
	rep, _ := os.ReadFile(report)
	logData, _ := os.ReadFile(logFile)
	if !bytes.Contains(logData, []byte(notify.LogSent)) {
		t.Errorf("the log has no %s line:\n%s", notify.LogSent, logData)
	}
	for name, text := range map[string]string{"stdout": stdout, "stderr": stderr, "the log": string(logData), "the report": string(rep)} {
		if strings.Contains(text, token) {
			t.Errorf("%s holds the dashboard's token:\n%s", name, text)
		}
	}
}
