package runner_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// Real processes, real time: limits are generous and the happy paths fast.

func playbook(t *testing.T, yaml string, args ...any) *playbooks.Playbook {
	t.Helper()
	src := fmt.Sprintf(yaml, args...)
	pb, findings := playbooks.Parse(t.TempDir()+"/pb.yaml", []byte(src))
	if pb == nil {
		t.Fatalf("playbook:\n%s\n%v", src, findings)
	}
	return pb
}

// syncBuffer is a bytes.Buffer safe for the run's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// quickKill starts programs with a short grace period, so tests of programs that
// ignore SIGTERM stay fast.
func quickKill(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
	return pty.Start(ctx, pty.Options{Argv: s.Argv, Env: s.Env, Dir: s.Dir, Rows: s.Rows, Cols: s.Cols, Grace: 200 * time.Millisecond})
}

func run(t *testing.T, pb *playbooks.Playbook, opts ...runner.Option) *report.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rep, err := runner.Run(ctx, pb, append([]runner.Option{runner.WithStarter(quickKill)}, opts...)...)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rep
}

func wantOutcome(t *testing.T, rep *report.Report, state engine.State, code int) {
	t.Helper()
	if rep.Outcome != state || rep.ExitCode != code {
		var tl strings.Builder
		for _, e := range rep.Timeline {
			fmt.Fprintf(&tl, "  %8.1f %-10s %-9s %s%s %q %q %s\n", e.TimeMS, e.Event, e.State, e.Rule, e.Step, e.Excerpt, e.Sent, e.Reason)
		}
		t.Fatalf("outcome %s/%d (%s), want %s/%d\n%s", rep.Outcome, rep.ExitCode, rep.Reason, state, code, tl.String())
	}
}

func TestRunAnswersPrompts(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := playbook(t, `
version: 1
name: prompter
spawn: {command: [%q, -q, "Project name: ", -q, "Continue? [y/n] "]}
vars: {project: demo}
settings: {min_send_interval: 0s}
steps:
  - expect: "Project name:"
    line: "{{ vars.project }}"
  - expect: {regex: 'Continue\? \[y/n\]'}
    line: "y"
  - expect: eof
`, prompter)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out), runner.WithVars(map[string]string{"project": "clai"}))
	wantOutcome(t, rep, engine.Done, 0)
	if !strings.Contains(out.String(), "got: clai") || !strings.Contains(out.String(), "got: y") {
		t.Fatalf("mirrored output:\n%s", out.String())
	}
	if rep.Child == nil || rep.Child.Code != 0 {
		t.Fatalf("child %+v", rep.Child)
	}
}

func TestRunDangerAbortKillsTheProgram(t *testing.T) {
	t.Parallel()
	danger := testprog.Build(t, "danger")
	pb := playbook(t, `
version: 1
name: danger
spawn: {command: [%q]}
rules:
  - {name: proceed, match: "Proceed?", line: "y", limit: 1}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: abort}
`, danger)
	for _, keep := range []bool{true, false} {
		rep := run(t, pb, runner.WithTimeline(keep))
		wantOutcome(t, rep, engine.Aborted, exitcode.Danger)
		if rep.Rules["proceed"] != 0 || rep.Rules["wipe"] != 1 || len(rep.DangerHits) != 1 {
			t.Fatalf("rules %v, danger hits %v", rep.Rules, rep.DangerHits)
		}
		if rep.Child == nil || rep.Child.Signal == "" {
			t.Fatalf("the program was not ended: %+v", rep.Child)
		}
		// Without a timeline, the report still counts and lists what matters.
		if got := len(rep.Timeline) > 0; got != keep {
			t.Errorf("WithTimeline(%v): %d events in the timeline", keep, len(rep.Timeline))
		}
	}
}

func TestRunDangerDenyRefuses(t *testing.T) {
	t.Parallel()
	danger := testprog.Build(t, "danger")
	pb := playbook(t, `
version: 1
name: deny
spawn: {command: [%q]}
settings: {settle: 100ms}
rules:
  - {name: proceed, match: "Proceed?", line: "y", limit: 1}
danger:
  - {name: wipe, match: "rm -rf /", action: deny, line: "n"}
`, danger)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	wantOutcome(t, rep, engine.Done, 0)
	if !strings.Contains(out.String(), "aborted") || rep.Rules["proceed"] != 0 {
		t.Fatalf("the refusal did not answer the prompt:\n%s", out.String())
	}
}

func TestRunSecretNeverLeaks(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	const secret = "hunter2-correct-horse"
	pb := playbook(t, `
version: 1
name: secret
spawn: {command: [%q, -q, "Enter passphrase: ", -secret, "1", -q, "Echo it: "]}
settings: {min_send_interval: 0s}
steps:
  - expect: "Enter passphrase:"
    secret: env:CLAI_TEST_SECRET
  - expect: "Echo it:"
    secret: env:CLAI_TEST_SECRET
  - expect: eof
`, prompter)
	core, logs := observer.New(zap.DebugLevel)
	var out syncBuffer
	env := append(os.Environ(), "CLAI_TEST_SECRET="+secret)
	rep := run(t, pb, runner.WithMirror(&out), runner.WithLogger(zap.New(core)), runner.WithEnviron(env))
	wantOutcome(t, rep, engine.Done, 0)
	// The second question echoes the secret back ("got: …"): the mirror masks it.
	if strings.Contains(out.String(), secret) || !strings.Contains(out.String(), "got: ******") {
		t.Fatalf("mirrored output shows the secret:\n%s", out.String())
	}
	for _, entry := range logs.All() {
		for _, v := range entry.ContextMap() {
			if strings.Contains(fmt.Sprint(v), secret) {
				t.Fatalf("log entry shows the secret: %v", entry.ContextMap())
			}
		}
	}
	var report bytes.Buffer
	fmt.Fprintf(&report, "%+v", *rep)
	if strings.Contains(report.String(), secret) {
		t.Fatal("report shows the secret")
	}
}

func TestRunMissingSecretFailsBeforeStarting(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: secret
spawn: {command: ["true"]}
steps:
  - {expect: "x", secret: env:CLAI_TEST_UNSET_SECRET}
`)
	_, err := runner.Run(t.Context(), pb, runner.WithEnviron([]string{"PATH=/usr/bin:/bin"}))
	if err == nil || !strings.Contains(err.Error(), "CLAI_TEST_UNSET_SECRET") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunFloodThenPrompt(t *testing.T) {
	t.Parallel()
	flood := testprog.Build(t, "flood")
	pb := playbook(t, `
version: 1
name: flood
spawn: {command: [%q, -bytes, 8MiB, -inject, "About to run: rm -rf /"]}
timeouts: {prompt: 500ms}
rules:
  - {name: continue, match: "Continue? [y/n]", line: "y", limit: 1}
danger:
  - {name: wipe, match: "rm -rf /"}
`, flood)
	rep := run(t, pb)
	// The danger line hidden in the middle of 8 MiB is seen, so nothing is approved.
	wantOutcome(t, rep, engine.Manual, exitcode.Manual)
	if rep.Rules["continue"] != 0 || rep.Rules["wipe"] != 1 {
		t.Fatalf("rules %v", rep.Rules)
	}
}

func TestRunNonUTF8(t *testing.T) {
	t.Parallel()
	binary := testprog.Build(t, "binary")
	pb := playbook(t, `
version: 1
name: binary
spawn: {command: [%q]}
steps:
  - {expect: "Name:", line: "gopher"}
  - expect: "hello gopher"
  - expect: eof
`, binary)
	wantOutcome(t, run(t, pb), engine.Done, 0)
}

func TestRunTimeoutEndsAStubbornProgram(t *testing.T) {
	t.Parallel()
	stubborn := testprog.Build(t, "stubborn")
	pb := playbook(t, `
version: 1
name: stubborn
spawn: {command: [%q]}
timeouts: {total: 300ms}
`, stubborn)
	rep := run(t, pb)
	wantOutcome(t, rep, engine.TimedOut, exitcode.Timeout)
	if rep.Child == nil || rep.Child.Signal != "killed" {
		t.Fatalf("child %+v, want killed", rep.Child)
	}
}

func TestRunLeavesNoOrphan(t *testing.T) {
	t.Parallel()
	forker := testprog.Build(t, "forker")
	pb := playbook(t, `
version: 1
name: forker
spawn: {command: [%q]}
steps:
  - expect: {regex: 'ready parent=(?P<parent>\d+) child=(?P<child>\d+)'}
timeouts: {total: 2s}
`, forker)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	wantOutcome(t, rep, engine.TimedOut, exitcode.Timeout)
	m := regexp.MustCompile(`ready parent=(\d+) child=(\d+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no pids in %q", out.String())
	}
	for _, s := range m[1:] {
		pid, _ := strconv.Atoi(s)
		waitGone(t, pid)
	}
}

// waitGone fails the test unless process pid ends within a few seconds of the run.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived the run", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunEndsWhenGrandchildHoldsTerminal: the program exits while a process it
// started keeps the terminal open. The run ends with the program (the reader's
// wait ends after the linger period), not at its timeout, and ends the process
// left behind.
func TestRunEndsWhenGrandchildHoldsTerminal(t *testing.T) {
	t.Parallel()
	forker := testprog.Build(t, "forker")
	pb := playbook(t, `
version: 1
name: forker
spawn: {command: [%q, -exit]}
steps:
  - expect: {regex: 'ready parent=\d+ child=\d+'}
timeouts: {total: 60s}
`, forker)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	wantOutcome(t, rep, engine.Done, 0)
	m := regexp.MustCompile(`child=(\d+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no pid in %q", out.String())
	}
	pid, _ := strconv.Atoi(m[1])
	waitGone(t, pid)
}

// TestRunProgramCannotStart: a program that cannot start gives a StartError and
// a report that says why, and the log says it too, with the secrets masked.
func TestRunProgramCannotStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("echo never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, spawn, why string }{
		{"missing", "{command: [clai-no-such-program-hunter2]}", `start "clai-no-such-program-******": executable file not found`},
		{"not executable", fmt.Sprintf("{command: [%q]}", notExec), "permission denied"},
		{"no folder", fmt.Sprintf("{command: [sh], dir: %q}", filepath.Join(dir, "none")), "working directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pb := playbook(t, `
version: 1
name: x
spawn: %s
steps:
  - {expect: "Password:", secret: "env:CLAI_TEST_PASS"}
`, tt.spawn)
			core, logs := observer.New(zap.DebugLevel)
			rep, err := runner.Run(t.Context(), pb, runner.WithLogger(zap.New(core)), runner.WithEnviron([]string{"CLAI_TEST_PASS=hunter2", "PATH=" + os.Getenv("PATH")}))
			var start *runner.StartError
			if !errors.As(err, &start) {
				t.Fatalf("err = %v, want a StartError", err)
			}
			if rep == nil {
				t.Fatal("no report")
			}
			wantOutcome(t, rep, engine.Failed, exitcode.Failed)
			if !strings.HasPrefix(rep.Reason, "could not start: ") || !strings.Contains(rep.Reason, tt.why) || rep.Child != nil {
				t.Errorf("reason %q, child %v: want why it could not start (%q), no child", rep.Reason, rep.Child, tt.why)
			}
			var logged []string
			for _, e := range logs.All() {
				for _, f := range e.Context {
					if f.Key == "reason" {
						logged = append(logged, e.Message+": "+f.String)
					}
				}
			}
			if !slices.Contains(logged, "error: "+rep.Reason) || !slices.Contains(logged, "finish: "+rep.Reason) {
				t.Errorf("logged %q, want the error and the finish with %q", logged, rep.Reason)
			}
			for _, text := range append(logged, err.Error(), rep.Reason) {
				if strings.Contains(text, "hunter2") {
					t.Errorf("the secret leaks: %q", text)
				}
			}
		})
	}
}

// Run refuses what lint reports as a refusal, with the same finding, also for a
// playbook changed after it was loaded; so does a replay.
func TestRunRefusesWhatNeedsAScreen(t *testing.T) {
	t.Parallel()
	pb := playbook(t, "version: 1\nname: x\nspawn: {command: [x]}\nsettings: {match: screen}\nsteps:\n  - {expect: a, choose: Yes}\n")
	pb.Settings.Match = playbooks.MatchStream
	want := pb.Path + ":6:17: error: choose needs settings.match: screen, to see the menu [needs-screen]"
	_, err := runner.Run(t.Context(), pb)
	var setup *runner.SetupError
	if !errors.As(err, &setup) || err.Error() != want {
		t.Fatalf("run: %v, want %s", err, want)
	}
	if _, err := runner.ReplayRecording(context.Background(), pb, &cast.Recording{}); err == nil || err.Error() != want {
		t.Fatalf("replay: %v, want %s", err, want)
	}
}

func TestRunDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := playbook(t, `
version: 1
name: dry
spawn: {command: [%q, -q, "Continue? [y/n] "]}
timeouts: {total: 1s}
rules:
  - {name: yes, match: "Continue? [y/n]", line: "y", limit: 1}
`, prompter)
	rep := run(t, pb, runner.WithDryRun(true))
	wantOutcome(t, rep, engine.Done, exitcode.Done)
	if rep.Mode != "dry-run" || rep.Rules["yes"] != 1 {
		t.Fatalf("mode %s rules %v", rep.Mode, rep.Rules)
	}
	found := false
	for _, e := range rep.Timeline {
		found = found || e.Event == "would-send" && e.Sent == "y\r"
	}
	if !found {
		t.Fatal("no would-send in the timeline")
	}
}

func TestRunCancelEndsTheProgram(t *testing.T) {
	t.Parallel()
	silent := testprog.Build(t, "silent")
	pb := playbook(t, "version: 1\nname: x\nspawn: {command: [%q]}\nsteps:\n  - expect: ready\n", silent)
	ctx, cancel := context.WithCancel(t.Context())
	var out syncBuffer
	done := make(chan *report.Report)
	go func() {
		rep, _ := runner.Run(ctx, pb, runner.WithStarter(quickKill), runner.WithMirror(&out))
		done <- rep
	}()
	for !strings.Contains(out.String(), "ready") {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	rep := <-done
	wantOutcome(t, rep, engine.Aborted, exitcode.Interrupted)
}

// TestRunPromptWithDefaultIsUnanswered: a real program that asks a question in
// npm init's style and waits is at a prompt: headless, the run ends with exit 4
// after timeouts.prompt, and the report lists the question as unanswered.
func TestRunPromptWithDefaultIsUnanswered(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: readline-default
spawn: {command: [sh, -c, "printf 'package name: (demo) '; read name; echo got=$name"]}
settings: {settle: 100ms}
timeouts: {prompt: 500ms}
`)
	rep := run(t, pb)
	wantOutcome(t, rep, engine.Prompting, exitcode.Manual)
	if len(rep.Unanswered) != 1 || !strings.Contains(rep.Unanswered[0].Excerpt, "package name: (demo)") {
		t.Fatalf("unanswered prompts %+v", rep.Unanswered)
	}
}

// TestRunNoRetryWhileEchoIsOff: a program that reads a password with echo off
// shows nothing for the answer, and then works for longer than clai waits for
// a reaction. The answer is typed once: a second copy would be read as the
// answer to the next question.
func TestRunNoRetryWhileEchoIsOff(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: echo-off
spawn: {command: [sh, -c, "stty -echo; printf 'Password: '; read -r pw; stty echo; sleep 2; printf 'Next? [y/n] '; read a; echo got=$a"]}
settings: {min_send_interval: 0s}
steps:
  - expect: "Password: "
    line: hunter2
  - expect: "Next? [y/n] "
    line: "y"
  - expect: eof
`)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	wantOutcome(t, rep, engine.Done, 0)
	if !strings.Contains(out.String(), "got=y") {
		t.Fatalf("the program read another answer:\n%s", out.String())
	}
	var sends []string
	for _, e := range rep.Timeline {
		if e.Event == "send" || e.Event == "retry" {
			sends = append(sends, string(e.Event)+" "+e.Sent)
		}
	}
	if len(sends) != 2 {
		t.Fatalf("sent %q, want each answer once", sends)
	}
}
