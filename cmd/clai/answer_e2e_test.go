package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/pidlock"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/hub"
)

// sessionsEnv is a sessions folder of the test's own, for clai processes
// that must find each other there and nowhere else.
type sessionsEnv struct {
	bin     string
	env     []string
	runtime string
	dir     string
}

func newSessionsEnv(t *testing.T) *sessionsEnv {
	t.Helper()
	dir := t.TempDir()
	runtime := filepath.Join(dir, "rt")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	e := &sessionsEnv{
		bin:     testprog.BuildCommand(t, "./cmd/clai"),
		env:     append(os.Environ(), "XDG_RUNTIME_DIR="+runtime, "XDG_STATE_HOME="+dir),
		runtime: runtime,
		dir:     dir,
	}
	// A run that asks on a channel starts the hub; it ends with the test.
	t.Cleanup(func() { e.stopHub(t) })
	return e
}

// stopHub stops the hub of e's runtime folder, if one runs, and waits
// until its lock is free: it is gone.
func (e *sessionsEnv) stopHub(t *testing.T) {
	if t.Failed() {
		if b, err := os.ReadFile(filepath.Join(e.runtime, "clai", "hub.log")); err == nil {
			t.Logf("the hub's log:\n%s", b)
		}
	}
	cmd := exec.Command(e.bin, "hub", "stop")
	cmd.Env = e.env
	_ = cmd.Run()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		lock, held, err := pidlock.TryLock(hub.LockPath(filepath.Join(e.runtime, "clai")))
		if err != nil {
			return
		}
		if !held {
			_ = lock.Unlock()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the hub of %s did not end", e.runtime)
}

// clai runs clai with args to its end and returns its stdout, stderr and
// exit code.
func (e *sessionsEnv) clai(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), e.bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// start starts clai with args and returns it with its output.
func (e *sessionsEnv) start(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, <-chan error) {
	t.Helper()
	out := new(bytes.Buffer)
	cmd := exec.Command(e.bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, out, exited
}

// sessions is what clai sessions --json lists.
func (e *sessionsEnv) sessions(t *testing.T) []ask.Session {
	t.Helper()
	stdout, stderr, code := e.clai(t, "sessions", "--json")
	if code != 0 {
		t.Fatalf("clai sessions: exit %d\n%s", code, stderr)
	}
	var list []ask.Session
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("clai sessions --json: %v\n%s", err, stdout)
	}
	return list
}

// waitQuestion waits until the only session has the open question id; a
// generous deadline only catches a hang, or a run that ended.
func (e *sessionsEnv) waitQuestion(t *testing.T, id string, exited <-chan error, out fmt.Stringer) ask.Session {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		list := e.sessions(t)
		if len(list) == 1 && list[0].Question != nil && list[0].Question.ID == id {
			return list[0]
		}
		select {
		case err := <-exited:
			t.Fatalf("clai run ended (%v) before question %s:\n%s", err, id, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question %s; sessions: %+v", id, list)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// folderEntries lists the sessions folder, its lock left out.
func (e *sessionsEnv) folderEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(e.runtime, "clai"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range entries {
		if d.Name() != ".lock" {
			names = append(names, d.Name())
		}
	}
	return names
}

// deployPlaybook writes a playbook whose program asks two questions no rule
// answers.
func deployPlaybook(t *testing.T, dir string) string {
	t.Helper()
	prompter := testprog.Build(t, "prompter")
	pb := fmt.Sprintf(`version: 1
name: deploy
spawn:
  command: [%q, "-q", "Project name: ", "-q", "Deploy where? [staging/prod] "]
timeouts:
  prompt: 120s
  total: 300s
`, prompter)
	path := filepath.Join(dir, "deploy.yaml")
	if err := os.WriteFile(path, []byte(pb), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAnswerFromAnotherProcess: a headless clai run --remote reaches a
// question; clai answer, another process, answers it (a text after --) and
// the program gets exactly that; a second answer to the same question is refused with its
// reason and exit 5; two answers to the next question at once, by its
// options, type one and refuse the other; the run ends well and leaves
// nothing in the sessions folder.
func TestAnswerFromAnotherProcess(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	pb := deployPlaybook(t, e.dir)
	_, out, exited := e.start(t, "run", "--remote", "--report", filepath.Join(e.dir, "run.json"), pb)

	s := e.waitQuestion(t, "q1", exited, out)
	if s.Name != "deploy" || s.State != "prompting" || s.Question.Text != "Project name:" {
		t.Fatalf("session = %+v, question %+v", s, s.Question)
	}
	stdout, stderr, code := e.clai(t, "answer", "dep", "--", "-demo project")
	if code != 0 || !strings.Contains(stdout, `question q1: sent "-demo project\r"`) {
		t.Fatalf("clai answer: exit %d\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = e.clai(t, "answer", "--question", "q1", s.ID, "other")
	if code != 5 || !strings.Contains(stderr, "question q1 was closed") || !strings.Contains(stderr, "(closed)") {
		t.Fatalf("a second answer to q1: exit %d, stderr %q; want 5 and the reason", code, stderr)
	}

	s = e.waitQuestion(t, "q2", exited, out)
	if got := fmt.Sprint(s.Question.Options); got != "[{staging } {prod }]" {
		t.Fatalf("q2 options = %s", got)
	}
	// Two people answer q2 at once: one answer is typed, the other refused.
	type result struct {
		choice, stderr string
		code           int
	}
	results := make(chan result, 2)
	for _, choice := range []string{"staging", "prod"} {
		go func() {
			_, stderr, code := e.clai(t, "answer", "--question", "q2", "--choose", choice)
			results <- result{choice, stderr, code}
		}()
	}
	first, second := <-results, <-results
	if first.code != 0 {
		first, second = second, first
	}
	// The other is refused as closed, or, if the program, which exits
	// after its last answer, was quicker, as ended or with no question open.
	if first.code != 0 || second.code != 5 || !strings.Contains(second.stderr, "(closed)") &&
		!strings.Contains(second.stderr, "(ended)") && !strings.Contains(second.stderr, "no question q2 is open") {
		t.Fatalf("two answers at once: %+v and %+v; want one typed, one refused", first, second)
	}
	waitRunEnd(t, exited, out)
	loser := map[string]string{"staging": "prod", "prod": "staging"}[first.choice]
	if got := out.String(); !strings.Contains(got, "got: -demo project\r\n") || !strings.Contains(got, "got: "+first.choice+"\r\n") ||
		strings.Contains(got, "other") || strings.Contains(got, "got: "+loser) {
		t.Fatalf("the program got:\n%s", got)
	}
	if names := e.folderEntries(t); len(names) != 0 {
		t.Fatalf("the run left %v in the sessions folder", names)
	}
	if _, stderr, code := e.clai(t, "answer", "late"); code != 5 || !strings.Contains(stderr, "no question is open") {
		t.Fatalf("an answer with nothing running: exit %d, %q", code, stderr)
	}
}

// TestKilledRunLeavesNoSession: a clai run killed with SIGKILL removes
// nothing; the next clai sessions removes its entry.
func TestKilledRunLeavesNoSession(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	cmd, out, exited := e.start(t, "run", "--remote", deployPlaybook(t, e.dir))
	e.waitQuestion(t, "q1", exited, out)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	if names := e.folderEntries(t); len(names) != 2 {
		t.Fatalf("the killed run left %v, want its entry and socket", names)
	}
	if list := e.sessions(t); len(list) != 0 {
		t.Fatalf("sessions after the kill: %+v", list)
	}
	if names := e.folderEntries(t); len(names) != 0 {
		t.Fatalf("clai sessions left %v", names)
	}
}
