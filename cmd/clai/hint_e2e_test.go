package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startSplit starts clai with args, its stdout and stderr kept apart.
func (e *sessionsEnv) startSplit(t *testing.T, args ...string) (stdout, stderr *lockedBuffer, exited <-chan error) {
	t.Helper()
	stdout, stderr = new(lockedBuffer), new(lockedBuffer)
	cmd := exec.Command(e.bin, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return stdout, stderr, done
}

// waitOutput waits until out holds want; a generous deadline only catches a
// hang, or a run that ended first.
func waitOutput(t *testing.T, out *lockedBuffer, want string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case err := <-exited:
			t.Fatalf("clai ended (%v) before it said %q:\n%s", err, want, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("clai did not say %q:\n%s", want, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hintLine is the line of text that starts with prefix, without it.
func hintLine(t *testing.T, text, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return rest
		}
	}
	t.Fatalf("no line starts with %q:\n%s", prefix, text)
	return ""
}

// TestHeadlessRunSaysWhereToAnswer: a headless clai run --remote says on
// stderr, once for each question, which session waits, the clai answer
// command for it (each option's, or a text's) and the running dashboard's
// address without its token; the commands it gives, run as given, answer
// the questions. When a run says so, and that -q silences it, is tested in
// runner/humanloop.
func TestHeadlessRunSaysWhereToAnswer(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	full := e.startDashboard(t)
	address, token, _ := strings.Cut(full, "?token=")
	pb := deployPlaybook(t, e.dir)
	stdout, stderr, exited := e.startSplit(t, "run", "--remote", pb)

	s := e.waitQuestion(t, "q1", exited, stdout)
	waitOutput(t, stderr, "waits for an answer to q1", exited)
	head := "clai: session " + s.ID + " (deploy) waits for an answer to q1: Project name:"
	text := "clai:   clai answer " + s.ID + " --question q1 TEXT"
	if got := stderr.String(); !strings.Contains(got, head+"\n") || !strings.Contains(got, text+"   (a line of text") ||
		!strings.Contains(got, "clai:   or on the dashboard: "+address+"\n") {
		t.Fatalf("stderr at q1:\n%s\nwant %q, %q and the dashboard %s", got, head, text, address)
	}
	// The command as given, with the text in place of TEXT.
	given := strings.Fields(text)                 // clai: clai answer ID --question q1 TEXT
	given = append(given[2:len(given)-1], "demo") // answer ID --question q1 demo
	if out, errOut, code := e.clai(t, given...); code != 0 {
		t.Fatalf("the command given for q1: exit %d\n%s%s", code, out, errOut)
	}

	waitOutput(t, stderr, "waits for an answer to q2", exited)
	prod := hintLine(t, stderr.String(), "clai:   clai answer "+s.ID+" --question q2 --choose prod")
	if prod != "" {
		t.Fatalf("the line for prod goes on: %q", prod)
	}
	hintLine(t, stderr.String(), "clai:   clai answer "+s.ID+" --question q2 --choose staging")
	if out, errOut, code := e.clai(t, "answer", s.ID, "--question", "q2", "--choose", "prod"); code != 0 {
		t.Fatalf("the command given for q2: exit %d\n%s%s", code, out, errOut)
	}
	if err := <-exited; err != nil {
		t.Fatalf("clai run: %v\n%s%s", err, stdout, stderr)
	}
	got := stderr.String()
	for _, q := range []string{"q1", "q2"} {
		if n := strings.Count(got, "waits for an answer to "+q+":"); n != 1 {
			t.Errorf("said %d times where to answer %s:\n%s", n, q, got)
		}
	}
	if strings.Contains(got+stdout.String(), token) {
		t.Errorf("the dashboard's token is in the run's output:\n%s", got)
	}
	if !strings.Contains(stdout.String(), "got: demo\r\n") || !strings.Contains(stdout.String(), "got: prod\r\n") {
		t.Errorf("the program got:\n%s", stdout)
	}
}
