package runner_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/playback"
	"github.com/clai-sh/clai/runner/report"
)

func replayEvents(evs ...any) *cast.Recording {
	rec := &cast.Recording{Header: cast.Header{Version: 2, Width: 80, Height: 24}}
	for i := 0; i < len(evs); i += 3 {
		rec.Events = append(rec.Events, cast.Event{Time: evs[i].(time.Duration).Seconds(), Kind: string(evs[i+1].(byte)), Data: evs[i+2].(string)})
	}
	return rec
}

func TestReplayDecidesAsLive(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: replay
spawn: {command: [x]}
settings: {min_send_interval: 0s}
steps:
  - {expect: "Name:", line: "demo"}
  - expect: eof
danger:
  - {name: wipe, match: "rm -rf /", action: abort}
`)
	ms := time.Millisecond
	rep, err := runner.ReplayRecording(context.Background(), pb, replayEvents(
		10*ms, byte('o'), "Name: ",
		20*ms, byte('m'), playback.MarkerSend,
		20*ms, byte('i'), "demo\r",
		21*ms, byte('o'), "demo\r\nbye\r\n",
		30*ms, byte('m'), "exit 0",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Done, 0)
	if rep.Mode != "replay" {
		t.Fatalf("mode %q", rep.Mode)
	}
	var sent []string
	for _, e := range rep.Timeline {
		if e.Event == "would-send" {
			sent = append(sent, e.Sent)
		}
	}
	if len(sent) != 1 || sent[0] != "demo\r" {
		t.Fatalf("would-sends %q", sent)
	}

	// The same recording with a dangerous line: the live run would have aborted.
	rep, err = runner.ReplayRecording(context.Background(), pb, replayEvents(
		10*ms, byte('o'), "About to run: rm -rf /\r\n",
		20*ms, byte('o'), "Name: ",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Aborted, exitcode.Danger)
}

func TestReplayTimeoutsFireByRecordedTime(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: replay
spawn: {command: [x]}
steps:
  - {expect: "Password:", secret: "env:PASS", timeout: 5s}
`)
	rep, err := runner.ReplayRecording(context.Background(), pb, replayEvents(
		time.Second, byte('o'), "Connecting...\r\n",
		10*time.Second, byte('o'), "Password: ",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.TimedOut, exitcode.Timeout)
}

func TestReplayPersonInput(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: replay
spawn: {command: [x]}
settings: {settle: 100ms}
timeouts: {prompt: 1m}
`)
	// A person answered a question no rule knows: the run goes on.
	rep, err := runner.ReplayRecording(context.Background(), pb, replayEvents(
		10*time.Millisecond, byte('o'), "Overwrite? [y/N] ",
		2*time.Second, byte('i'), "y\r",
		2*time.Second, byte('o'), "y\r\ndone\r\n",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Done, 0)
	if len(rep.Unanswered) != 1 {
		t.Fatalf("unanswered %v", rep.Unanswered)
	}
}

// decisions lists what a report says was sent (or would have been), with the rule or
// step that sent it, in order.
func decisions(rep *report.Report) []string {
	var out []string
	for _, e := range rep.Timeline {
		if e.Event == "send" || e.Event == "would-send" {
			out = append(out, e.Rule+e.Step+"="+e.Sent)
		}
	}
	return out
}

// TestRecordThenReplay runs a real program live with a recording, then replays the
// recording: the replay must make exactly the live run's decisions, and end the same.
func TestRecordThenReplay(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := playbook(t, `
version: 1
name: round-trip
spawn: {command: [%q, -q, "Project name: ", -q, "Passphrase: ", -secret, "2", -q, "Overwrite notes.md? [y/N] ", -q, "Continue? [y/n] "]}
settings: {min_send_interval: 50ms}
steps:
  - {name: project, expect: "Project name:", line: "demo"}
  - {name: passphrase, expect: "Passphrase:", secret: env:CLAI_RT_SECRET}
rules:
  - name: overwrite
    match: {regex: 'Overwrite (?P<file>\S+)\? \[y/N\]'}
    when: 'match.file endsWith ".md"'
    line: "y"
    limit: 1
  - {name: continue, match: "Continue? [y/n]", line: "y", limit: 1}
`, prompter)
	var buf bytes.Buffer
	w, err := cast.NewWriter(&buf, cast.Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "CLAI_RT_SECRET=s3cr3t-value")
	live := run(t, pb, runner.WithRecording(w), runner.WithEnviron(env))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, live, engine.Done, 0)
	if bytes.Contains(buf.Bytes(), []byte("s3cr3t-value")) {
		t.Fatal("the recording holds the secret")
	}
	rec, err := cast.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := runner.ReplayRecording(context.Background(), pb, rec)
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, replayed, engine.Done, 0)
	if got, want := decisions(replayed), decisions(live); strings.Join(got, "|") != strings.Join(want, "|") || len(want) != 4 {
		t.Fatalf("replay decided %q, the live run %q", got, want)
	}
}
