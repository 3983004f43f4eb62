package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
)

func TestScreenPromptWithTrailingSpaceRealProgram(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := playbook(t, `
version: 1
name: password
spawn:
  command: [%q, -q, "Password: "]
  size: {rows: 24, cols: 80}
settings: {match: screen, settle: 50ms, min_send_interval: 0s}
timeouts: {total: 20s, step: 10s}
steps:
  - {expect: "Password: ", line: "hunter2"}
  - expect: eof
`, prompter)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	wantOutcome(t, rep, engine.Done, 0)
	if !strings.Contains(out.String(), "got: hunter2") {
		t.Fatalf("the program's output:\n%s", out.String())
	}
}
