package runner_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner"
)

func replayEvents(evs ...any) []runner.ReplayEvent {
	var out []runner.ReplayEvent
	for i := 0; i < len(evs); i += 3 {
		out = append(out, runner.ReplayEvent{At: evs[i].(time.Duration), Kind: evs[i+1].(byte), Data: evs[i+2].(string)})
	}
	return out
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
	rep, err := runner.Replay(pb, replayEvents(
		10*ms, byte('o'), "Name: ",
		20*ms, byte('m'), runner.MarkerSend,
		20*ms, byte('i'), "demo\r",
		21*ms, byte('o'), "demo\r\nbye\r\n",
		30*ms, byte('m'), "exit 0",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, runner.Done, 0)
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
	rep, err = runner.Replay(pb, replayEvents(
		10*ms, byte('o'), "About to run: rm -rf /\r\n",
		20*ms, byte('o'), "Name: ",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, runner.Aborted, runner.ExitDanger)
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
	rep, err := runner.Replay(pb, replayEvents(
		time.Second, byte('o'), "Connecting...\r\n",
		10*time.Second, byte('o'), "Password: ",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, runner.TimedOut, runner.ExitTimeout)
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
	rep, err := runner.Replay(pb, replayEvents(
		10*time.Millisecond, byte('o'), "Overwrite? [y/N] ",
		2*time.Second, byte('i'), "y\r",
		2*time.Second, byte('o'), "y\r\ndone\r\n",
	))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, runner.Done, 0)
	if len(rep.Unanswered) != 1 {
		t.Fatalf("unanswered %v", rep.Unanswered)
	}
}
