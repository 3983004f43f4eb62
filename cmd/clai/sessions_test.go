package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/sessions"
)

func TestPickSession(t *testing.T) {
	t.Parallel()
	open := func(id, name, q string) sessions.Found {
		s := ask.Session{ID: id, Name: name}
		if q != "" {
			s.Question = &ask.Question{ID: q}
		}
		return sessions.Found{Session: s, Socket: "/run/" + id + ".sock"}
	}
	live := []sessions.Found{
		open("a1", "deploy-web", "q1"),
		open("b2", "deploy-db", ""),
		open("c3", "build", "q4"),
	}
	tests := []struct {
		name, target, question string
		wait                   bool
		live                   []sessions.Found
		want                   string // the id picked
		code                   int    // else the exit code
		says                   string
	}{
		{name: "by id", target: "c3", live: live, want: "c3"},
		{name: "by unique name prefix", target: "deploy-w", live: live, want: "a1"},
		{name: "an id wins over names", target: "c3", live: append(live, open("x", "c3-job", "q1")), want: "c3"},
		{name: "a prefix several have", target: "deploy", live: live, code: 2, says: "2 sessions fit, name one: a1 (deploy-web), b2 (deploy-db)"},
		{name: "no such session", target: "zzz", live: live, code: 1, says: `no running session has the id "zzz"`},
		{name: "no open question", target: "deploy-d", live: live, code: 5, says: "has no open question"},
		{name: "the only open question", live: live[:2], want: "a1"},
		{name: "several open questions", live: live, code: 2, says: "2 sessions fit"},
		{name: "none open", live: live[1:2], code: 5, says: "no question is open on this machine"},
		{name: "a closed question of the only session", question: "q9", live: live[1:2], want: "b2"},
		{name: "the session whose question it is", question: "q4", live: live, want: "c3"},
		{name: "nothing runs", question: "q1", code: 5, says: "no question q1 is open on this machine"},
		{name: "nothing runs at all", target: "x", code: 1, says: `no running session has the id "x"`},
		{name: "waits for a session's next question", target: "deploy-d", wait: true, live: live, want: "b2"},
		{name: "waits in the only session", wait: true, live: live[1:2], want: "b2"},
		{name: "waiting takes an open question first", wait: true, live: live[:2], want: "a1"},
		{name: "waits with several sessions and none open", wait: true, live: []sessions.Found{live[1], open("d4", "lint", "")}, code: 2, says: "2 sessions fit"},
		{name: "waits with nothing running", wait: true, code: 1, says: "no session is running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := pickSession(tt.live, tt.target, tt.question, tt.wait)
			if tt.code == 0 {
				if err != nil || p.session.ID != tt.want {
					t.Fatalf("picked %q, %v; want %q", p.session.ID, err, tt.want)
				}
				return
			}
			var ee *exitError
			if !errors.As(err, &ee) || ee.code != tt.code || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("got %v; want exit %d saying %q", err, tt.code, tt.says)
			}
		})
	}
}

func TestAnswerUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"answer"},
		{"answer", "s", "text", "more"},
		{"answer", "--choose", "y", "--keys", "enter"},
		{"answer", "--choose", "", "s"},
		{"answer", "--keys", " ", "s"},
		{"answer", "--choose", "y", "s", "extra"},
		{"sessions", "extra"},
		{"answer", "s", "--", "-1", "more"},
		{"answer", "--wait=soon", "s", "y"},
		{"answer", "--wait=0s", "s", "y"},
		{"answer", "--wait=-1m", "s", "y"},
		{"answer", "--wait=25h", "s", "y"},
		{"answer", "s", "--wait=x", "--choose", "y"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), append([]string{"clai"}, args...), strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "clai: ") {
			t.Errorf("clai %q: exit %d, stderr %q; want 2 and one line", args, code, stderr.String())
		}
	}
}

func TestPrintSessions(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	err := printSessions(&out, []ask.Session{{
		ID: "a1", Name: "deploy", State: "prompting", Since: at, Playbook: "deploy.yaml", Program: []string{"./install.sh", "--beta"},
		Question: &ask.Question{ID: "q2", Text: "Deploy\twhere?\x1b[2J", Options: []ask.Option{{Label: "staging"}, {Label: "prod"}}},
	}}, at.Add(95*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := "ID  NAME    STATE      SINCE  PLAYBOOK     PROGRAM              QUESTION\n" +
		"a1  deploy  prompting  1m35s  deploy.yaml  ./install.sh --beta  q2: Deploy where? [2J [staging | prod]\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// A session's texts come from a playbook and a program, either of which may be
// hostile: clai sessions prints none of their control characters, 8-bit ones
// included, so nothing it prints can drive the terminal.
func TestSessionsPrintNoControlCharacters(t *testing.T) {
	t.Parallel()
	hostile := "x\x1b]0;owned\x07\u009b2J\u009d8;;http://evil\u009c\x7fy"
	var out bytes.Buffer
	err := printSessions(&out, []ask.Session{{
		ID: "id" + hostile, Name: hostile, State: "prompting" + hostile, Playbook: hostile, Program: []string{hostile, hostile},
		Question: &ask.Question{ID: "q1" + hostile, Text: hostile, Options: []ask.Option{{Label: hostile}}},
	}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.String() {
		if r < ' ' && r != '\n' || r >= 0x7f && r <= 0x9f {
			t.Fatalf("clai sessions printed the control character %U:\n%q", r, out.String())
		}
	}
}
