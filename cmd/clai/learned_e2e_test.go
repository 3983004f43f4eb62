package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/daemon"
)

// learnsPlaybook writes the playbook "learns" whose program asks where to
// deploy a build (its id and path differ from run to run), a password, and a
// release name; extra is added to it.
func learnsPlaybook(t *testing.T, dir string, run int, extra string) string {
	t.Helper()
	prompter := testprog.Build(t, "prompter")
	pb := fmt.Sprintf(`version: 1
name: learns
spawn:
  command: [%q, "-q", "Deploy build %x to /srv/app%d? [yes/no] ", "-q", "Password: ", "-secret", "2", "-q", "Release name: "]
timeouts:
  prompt: 120s
  total: 300s
%s`, prompter, 0xa1b2c3d0+run, run, extra)
	path := filepath.Join(dir, fmt.Sprintf("learns-%d.yaml", run))
	if err := os.WriteFile(path, []byte(pb), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// answerRun runs the playbook at path headless and answers its three
// questions as a person would through clai answer; it returns the first
// question as the session API showed it, and the run's output.
func (e *sessionsEnv) answerRun(t *testing.T, path string) (ask.Question, string) {
	t.Helper()
	_, out, exited := e.start(t, "run", "--remote", path)
	s := e.waitQuestion(t, "q1", exited, out)
	first := *s.Question
	e.mustAnswer(t, "--choose", "yes")
	e.waitQuestion(t, "q2", exited, out)
	e.mustAnswer(t, "--", "hunter2-secret")
	e.waitQuestion(t, "q3", exited, out)
	e.mustAnswer(t, "--", "spring")
	waitRunEnd(t, exited, out)
	return first, out.String()
}

func (e *sessionsEnv) mustAnswer(t *testing.T, args ...string) {
	t.Helper()
	if stdout, stderr, code := e.clai(t, append([]string{"answer"}, args...)...); code != 0 {
		t.Fatalf("clai answer %v: exit %d\n%s%s", args, code, stdout, stderr)
	}
}

// waitRunEnd waits for a clai run to end well, two minutes at most.
func waitRunEnd(t *testing.T, exited <-chan error, out *bytes.Buffer) {
	t.Helper()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("clai run: %v\n%s", err, out)
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("clai run still runs after its last answer:\n%s", out)
	}
}

// TestSuggestRulesLintClean: the rules clai suggest rules proposes from the
// answers people repeated, pasted into the playbook, lint clean with
// --strict (their examples match and their tests pass); clai suggest forget
// forgets them.
func TestSuggestRulesLintClean(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	for run := 1; run <= 2; run++ {
		e.answerRun(t, learnsPlaybook(t, e.dir, run, ""))
	}
	path := learnsPlaybook(t, e.dir, 3, "")
	proposal, stderr, code := e.clai(t, "suggest", "rules", path)
	if code != 0 {
		t.Fatalf("clai suggest rules: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`match: {regex: 'Deploy\s+build\s+\S+\s+to\s+\S+\?\s+\[yes/no\]'}`, `line: "yes"`, `line: "spring"`,
		`examples: ["Release name:"]`, `expect: {sent: "yes\r", fired: [learned-deploy-build-to-yesno]}`,
	} {
		if !strings.Contains(proposal, want) {
			t.Errorf("the proposal has no %s:\n%s", want, proposal)
		}
	}
	if strings.Contains(proposal, "Password") {
		t.Errorf("the proposal answers the password:\n%s", proposal)
	}
	learns := must(os.ReadFile(path))
	merged := filepath.Join(e.dir, "merged.yaml")
	if err := os.WriteFile(merged, append(learns, proposal...), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := e.clai(t, "lint", "--strict", "--no-config", merged); code != 0 || !strings.Contains(stdout+stderr, "0 errors, 0 warnings") {
		t.Fatalf("the proposal does not lint clean: exit %d\n%s%s\n%s", code, stdout, stderr, proposal)
	}
	if stdout, _, code := e.clai(t, "suggest", "forget", "learns"); code != 0 || stdout != "forgot 4 learned answers\n" {
		t.Fatalf("clai suggest forget: exit %d, %q", code, stdout)
	}
	if proposal, _, _ := e.clai(t, "suggest", "rules", path); strings.Contains(proposal, "rules:") {
		t.Fatalf("rules proposed from forgotten answers:\n%s", proposal)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSuggestRulesChooseLintsClean: a menu a person answered twice, from
// the dashboard's way of choosing (clai answer --choose), becomes a choose:
// rule whose test shows the menu; pasted into the playbook, it lints clean
// and answers the menu in the next run by itself.
func TestSuggestRulesChooseLintsClean(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	tui := testprog.Build(t, "tui")
	write := func(name, extra string, run int) string {
		path := filepath.Join(e.dir, name)
		pb := fmt.Sprintf(`version: 1
name: trust
spawn:
  command: [%q, "-question", "Trust the folder /srv/app%d?", "-options", "Yes|No"]
settings: {match: screen}
timeouts: {prompt: 120s, total: 300s}
%s`, tui, run, extra)
		if err := os.WriteFile(path, []byte(pb), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for run := 1; run <= 2; run++ {
		_, out, exited := e.start(t, "run", "--remote", write(fmt.Sprintf("trust-%d.yaml", run), "", run))
		e.waitQuestion(t, "q1", exited, out)
		e.mustAnswer(t, "--choose", "No")
		waitRunEnd(t, exited, out)
	}
	proposal, stderr, code := e.clai(t, "suggest", "rules", write("trust.yaml", "", 3))
	if code != 0 || !strings.Contains(proposal, `choose: "No"`) {
		t.Fatalf("clai suggest rules: exit %d\n%s%s", code, proposal, stderr)
	}
	merged := write("merged.yaml", proposal, 3)
	if stdout, stderr, code := e.clai(t, "lint", "--strict", "--no-config", merged); code != 0 {
		t.Fatalf("the proposal does not lint clean: exit %d\n%s%s\n%s", code, stdout, stderr, proposal)
	}
	stdout, stderr, code := e.clai(t, "run", merged)
	if code != 0 || !strings.Contains(stdout, "chose: No") {
		t.Fatalf("the next run with the rule: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestHistoryIsSuggested: with the history source and clai daemon serving,
// a question that asks for a command carries the daemon's next commands for
// the program's folder; without the daemon, the run goes on without them.
func TestHistoryIsSuggested(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	repo := gitRepo(t, e.dir, "test", "lint")
	pb := filepath.Join(e.dir, "history.yaml")
	if err := os.WriteFile(pb, fmt.Appendf(nil, `version: 1
name: history
spawn:
  command: [%q, "-q", "Which command should run next? "]
  dir: %q
timeouts:
  prompt: 120s
suggest:
  sources: [history]
`, testprog.Build(t, "prompter"), repo), 0o644); err != nil {
		t.Fatal(err)
	}
	question := func() []ask.Suggestion {
		t.Helper()
		_, out, exited := e.start(t, "run", "--remote", pb)
		s := e.waitQuestion(t, "q1", exited, out)
		e.mustAnswer(t, "--", "make test")
		waitRunEnd(t, exited, out)
		return s.Question.Suggestions
	}
	if got := question(); len(got) != 0 {
		t.Fatalf("with no daemon, the question carries %+v", got)
	}
	e.startDaemon(t)
	var lines strings.Builder
	now := time.Now()
	for i := range 3 {
		lines.WriteString(commandLine("s1", repo, "git pull", now.Add(time.Duration(i)*time.Minute)))
		lines.WriteString(commandLine("s1", repo, "make lint", now.Add(time.Duration(i)*time.Minute+time.Second)))
	}
	if _, _, err := daemon.NewClient(e.socket()).Ingest(t.Context(), []byte(lines.String())); err != nil {
		t.Fatal(err)
	}
	got := question()
	var commands []string
	for _, s := range got {
		if s.Source != "history" || s.Count != 0 || s.Option {
			t.Fatalf("a suggestion of the history source: %+v", s)
		}
		commands = append(commands, s.Text)
	}
	if !slices.Contains(commands, "make lint") || !slices.Contains(commands, "git pull") {
		t.Fatalf("the question carries %v, want the folder's commands", commands)
	}
}
