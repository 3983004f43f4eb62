package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// With a real program: the run ends at the prompt, the program is ended and
// never receives an answer.
func TestUnsetVariableTypesNothing(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := playbook(t, `
version: 1
name: unset
spawn: {command: [%q, -q, "Token: "]}
settings: {min_send_interval: 0s}
timeouts: {total: 30s}
steps:
  - {expect: "Token:", line: "{{ env.CLAI_TEST_UNSET }}"}
  - expect: eof
`, prompter)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out), runner.WithEnviron([]string{"PATH=/usr/bin:/bin"}))
	wantOutcome(t, rep, engine.Failed, exitcode.Failed)
	if !strings.Contains(rep.Reason, "the environment variable CLAI_TEST_UNSET is not set") {
		t.Fatalf("reason %q", rep.Reason)
	}
	if strings.Contains(out.String(), "got:") {
		t.Fatalf("the program received an answer:\n%s", out.String())
	}
	for _, e := range rep.Timeline {
		if e.Event == "send" {
			t.Fatalf("sent %q", e.Sent)
		}
	}
}
