package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/playtest"
)

// A test's lines arrive in its own virtual time, settle apart: a timer that
// falls due between two lines fires before the next one arrives, as it would
// in a run. Here the step's timeout (102.5 ms) falls between the end of the
// first line's settle (102 ms) and the second line (103 ms).
func TestPlaybookTestTimerBetweenLinesFiresFirst(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: between
spawn: {command: [x]}
settings: {settle: 100ms, min_send_interval: 0s}
steps:
  - {expect: "Name:", line: demo, timeout: 102.5ms}
tests:
  - name: late
    output: "Loading\nName: "
    expect: {state: timeout, sent: "", exit: 124}
`)
	res := playtest.RunTests(t.Context(), pb)
	if len(res) != 1 || !res[0].Passed() {
		t.Fatalf("%+v", res)
	}
}

// A recording that does not say how the program ended ends at its last event:
// a timer due then fires before the end, as in a run, where the program's end
// is seen after its last output. Here, with no settle, the prompt the last
// output shows is found unanswered.
func TestReplayTimerDueAtTheLastEventFiresBeforeTheEnd(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: last
spawn: {command: [x]}
settings: {settle: 0s}
`)
	rep, err := runner.ReplayRecording(context.Background(), pb, replayEvents(10*time.Millisecond, byte('o'), "Continue? [y/n] "))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Done, 0)
	if len(rep.Unanswered) != 1 || rep.Unanswered[0].Excerpt != "Continue? [y/n]" {
		t.Fatalf("unanswered %+v", rep.Unanswered)
	}
}
