package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/playtest"
)

// checksLeft is a context that ends after its Err has been asked n times: it
// ends in the middle of work that checks it as it goes.
type checksLeft struct {
	context.Context
	n int
}

func (c *checksLeft) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestReplayStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: replay
spawn: {command: [x]}
settings: {min_send_interval: 0s}
steps:
  - {expect: "Name:", line: "demo"}
  - {expect: "Again:", line: "demo"}
  - expect: eof
`)
	ms := time.Millisecond
	rec := replayEvents(
		10*ms, byte('o'), "Name: ",
		20*ms, byte('o'), "\r\nAgain: ",
		30*ms, byte('m'), "exit 0",
	)
	rep, err := runner.ReplayRecording(&checksLeft{Context: t.Context(), n: 1}, pb, rec)
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Aborted, exitcode.Interrupted)
	if rep.Reason != "clai was interrupted" {
		t.Fatalf("reason %q", rep.Reason)
	}
	rep, err = runner.ReplayRecording(t.Context(), pb, rec)
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Done, 0)
}

func TestPlaybookTestsStopWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: tests
spawn: {command: [x]}
rules:
  - {name: yes, match: "[y/n]", line: "y", limit: 9}
tests:
  - {name: one, output: "Go? [y/n] ", expect: {sent: "y\r"}}
  - {name: two, output: "Go? [y/n] ", expect: {sent: "y\r"}}
  - {name: three, output: "Go? [y/n] ", expect: {sent: "y\r"}}
`)
	if got := playtest.RunTests(t.Context(), pb); len(got) != 3 {
		t.Fatalf("%d results, want 3", len(got))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got := playtest.RunTests(ctx, pb); len(got) != 0 {
		t.Fatalf("ran %d tests after the context ended", len(got))
	}
	// Ended in the middle of the first test: it is not reported as if it had run.
	if got := playtest.RunTests(&checksLeft{Context: t.Context(), n: 1}, pb); len(got) != 0 {
		t.Fatalf("results %+v after the context ended", got)
	}
}
