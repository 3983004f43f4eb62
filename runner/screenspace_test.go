package runner_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
)

// In screen mode a pattern that ends in a space matches a prompt drawn with
// that space and the cursor after it, though the screen's rows are read
// without trailing blanks; not a prompt whose cursor stops before it.
func TestScreenPatternEndingInASpace(t *testing.T) {
	t.Parallel()
	pb := header + `
settings: {match: screen, settle: 10ms, min_send_interval: 0s}
steps:
  - {expect: "Password: ", line: "hunter2"}
`
	s := newSim(t, pb, runner.Config{Rows: 5, Cols: 40})
	s.out(time.Millisecond, "Password:")
	s.advance(50 * time.Millisecond)
	s.wantSent()
	// The space arrives on its own: only the cursor moves.
	s.out(time.Millisecond, " ")
	s.advance(50 * time.Millisecond)
	s.wantSent("hunter2\r")

	hidden := newSim(t, pb, runner.Config{Rows: 5, Cols: 40})
	hidden.out(time.Millisecond, "\x1b[?25lPassword: ")
	hidden.advance(50 * time.Millisecond)
	hidden.wantSent()
}

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
	wantOutcome(t, rep, runner.Done, 0)
	if !strings.Contains(out.String(), "got: hunter2") {
		t.Fatalf("the program's output:\n%s", out.String())
	}
}
