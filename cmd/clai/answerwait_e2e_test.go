package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAnswerWaitBackToBack: two answers given back to back, the second with
// --wait, land on the right questions: the first answers q1, the second waits
// for q2 to open (none is open once q1 is answered) and answers it. A wait
// for a question that never opens ends with exit 124, and one the run's end
// cuts short with exit 5 and the reason.
func TestAnswerWaitBackToBack(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	_, out, exited := e.start(t, "run", "--remote", deployPlaybook(t, e.dir))
	e.waitQuestion(t, "q1", exited, out)

	// A question that never opens: the wait runs out.
	_, stderr, code := e.clai(t, "answer", "dep", "--wait=1s", "--question", "q9", "x")
	if code != 124 || !strings.Contains(stderr, "no question opened within 1s (--wait)") {
		t.Fatalf("a wait for q9: exit %d, stderr %q; want 124", code, stderr)
	}

	stdout, stderr, code := e.clai(t, "answer", "dep", "demo")
	if code != 0 || !strings.Contains(stdout, `question q1: sent "demo\r"`) {
		t.Fatalf("clai answer: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = e.clai(t, "answer", "dep", "--wait=2m", "--choose", "prod")
	if code != 0 || !strings.Contains(stdout, "question q2: sent") {
		t.Fatalf("clai answer --wait --choose prod: exit %d\n%s%s", code, stdout, stderr)
	}

	waitRunEnd(t, exited, out)
	if got := out.String(); !strings.Contains(got, "got: demo\r\n") || !strings.Contains(got, "got: prod\r\n") {
		t.Fatalf("the program got:\n%s", got)
	}
}

// TestAnswerWaitRunEnds: a clai answer --wait that waits while the run ends
// says so, exit 5 with the code ended.
func TestAnswerWaitRunEnds(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	log := filepath.Join(e.dir, "run.jsonl")
	_, out, exited := e.start(t, "run", "--remote", "--log", log, deployPlaybook(t, e.dir))
	e.waitQuestion(t, "q1", exited, out)

	type result struct {
		stderr string
		code   int
	}
	waited := make(chan result, 1)
	go func() {
		// q7 is never asked: tried at once (refused, as no question q7 is
		// open), then waited for.
		_, stderr, code := e.clai(t, "answer", "dep", "--wait=5m", "--question", "q7", "x")
		waited <- result{stderr, code}
	}()
	// The run logs the refusal once the waiting clai answer watches it.
	waitLog(t, log, `"event":"refused"`, `q7`)
	for _, answer := range [][]string{{"dep", "demo"}, {"dep", "--wait", "--choose", "staging"}} {
		if stdout, stderr, code := e.clai(t, append([]string{"answer"}, answer...)...); code != 0 {
			t.Fatalf("clai answer %v: exit %d\n%s%s", answer, code, stdout, stderr)
		}
	}
	r := <-waited
	if r.code != 5 || !strings.Contains(r.stderr, "(ended)") {
		t.Fatalf("a wait the run's end cut short: exit %d, stderr %q; want 5 and (ended)", r.code, r.stderr)
	}
	if err := <-exited; err != nil {
		t.Fatalf("clai run: %v\n%s", err, out)
	}
}

// waitLog waits until a line of the event log at path holds every one of
// parts; a generous deadline only catches a hang.
func waitLog(t *testing.T, path string, parts ...string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			found := true
			for _, p := range parts {
				found = found && strings.Contains(line, p)
			}
			if found {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line of %s holds %q:\n%s", path, parts, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
