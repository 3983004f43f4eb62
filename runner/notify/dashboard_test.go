package notify_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/sessions"
)

// TestDashboardURLInNotifications: a question's notification carries the
// URL of the dashboard that runs when it is made, started after the sender
// or not, and none when no dashboard runs or only a gone one left its file;
// a target with dashboard_link: false never gets it, and the token is in
// no log line, not even when a target's error quotes what it was sent.
func TestDashboardURLInNotifications(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	reg, err := sessions.Open(filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	const token = "kH3vXq9-dashboard_token"
	const dashURL = "http://127.0.0.1:40125/?token=" + token
	took, refused := filepath.Join(dir, "took.jsonl"), filepath.Join(dir, "refused.jsonl")
	sTakes := spec(playbooks.NotifyCommand)
	sTakes.Command = []string{"sh", "-c", `cat >> "$0"; echo >> "$0"`, took}
	sRefuses := spec(playbooks.NotifyCommand)
	sRefuses.Command = []string{"sh", "-c", `cat >> "$0"; echo >> "$0"`, refused}
	sRefuses.NoDashboardLink = true
	// A target whose error quotes the dashboard's URL it was sent.
	sEchoes := spec(playbooks.NotifyCommand)
	sEchoes.Command = []string{"sh", "-c", `sed -e 's/.*"dashboard":"\([^"]*\)".*/\1/' >&2; exit 1`}
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{
		{Target: open(t, sTakes), Spec: sTakes},
		{Target: open(t, sRefuses), Spec: sRefuses},
		{Target: open(t, sEchoes), Spec: sEchoes},
	}, notify.WithLogger(log), notify.WithBackoff(noBackoff), notify.WithGrace(time.Minute),
		notify.WithDashboard(reg.DashboardURL))
	session := newFakeDesk().Session()

	sender.Notify(questionUpdate(question("q1", "Before the dashboard?", "y", "n")), session)
	dash, err := reg.AnnounceDashboard(dashURL)
	if err != nil {
		t.Fatal(err)
	}
	sender.Notify(questionUpdate(question("q2", "While it runs?", "y", "n")), session)
	if err := dash.Close(); err != nil {
		t.Fatal(err)
	}
	// What a killed dashboard leaves: its file, which nobody holds locked.
	stale := filepath.Join(reg.Dir(), "dashboard-0123456789abcdef.json")
	if err := os.WriteFile(stale, []byte(`{"url":"`+dashURL+`","pid":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sender.Notify(questionUpdate(question("q3", "After it was killed?", "y", "n")), session)
	sender.Close()

	got := dashboards(t, took)
	if want := []string{"", dashURL, ""}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the dashboards of the three notifications: %q, want %q", got, want)
	}
	if got := dashboards(t, refused); strings.Join(got, "") != "" || len(got) != 3 {
		t.Errorf("a target with dashboard_link: false got %q", got)
	}
	evs, all := events(obs)
	if strings.Contains(all, token) {
		t.Fatalf("the log holds the dashboard's token:\n%s", all)
	}
	if count(evs, notify.LogFailed) == 0 || !strings.Contains(all, "(the dashboard)") {
		t.Errorf("want the echoing target's failures logged, its dashboard masked:\n%s", all)
	}
}

// dashboards reads the notifications a command target wrote to path and
// returns the dashboard each carried; its text says it too.
func dashboards(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		var n notify.Notification
		if err := json.Unmarshal(lines.Bytes(), &n); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		validate(t, lines.Bytes())
		if n.Answer == nil {
			t.Fatalf("a question's notification without how to answer: %s", lines.Bytes())
		}
		if d := n.Answer.Dashboard; d != "" && !strings.Contains(n.Message(), d) {
			t.Errorf("the text does not show the dashboard %s:\n%s", d, n.Message())
		}
		out = append(out, n.Answer.Dashboard)
	}
	return out
}
