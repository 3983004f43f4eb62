package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// A template or a when that fails at run time ends the run at once, FAILED
// with exit 1 and the reason, and types nothing: not an empty answer, not a
// wait for a timeout.
func TestExpressionFailureEndsTheRun(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, rule, output, reason string
		environ                    map[string]string
	}{
		{
			name:   "unset variable",
			rule:   `{name: token, match: "Token:", line: "{{ env.CLAI_TOKEN }}"}`,
			output: "Token: ", reason: `rule "token": template {{ env.CLAI_TOKEN }}: the environment variable CLAI_TOKEN is not set`,
			environ: map[string]string{"HOME": "/home/x"},
		},
		{
			name:   "unset variable by index",
			rule:   `{name: token, match: "Token:", line: "{{ env['CLAI_TOKEN'] }}"}`,
			output: "Token: ", reason: "the environment variable CLAI_TOKEN is not set",
		},
		{
			// The regex has a second group; the literal matched, which has none.
			name:   "group past the last",
			rule:   `{name: pick, match: [{regex: 'Pick (\d+)-(\d+):'}, "Pick:"], line: "{{ match.groups[2] }}"}`,
			output: "Pick: ", reason: `rule "pick": template {{ match.groups[2] }}: index out of range: 2 (array length is 1)`,
		},
		{
			name:   "when past the last group",
			rule:   `{name: pick, match: [{regex: 'Pick (\d+)-(\d+):'}, "Pick:"], when: 'match.groups[2] == "1"', line: "y"}`,
			output: "Pick: ", reason: `rule "pick": when "match.groups[2] == \"1\"": index out of range`,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {min_send_interval: 0s}\nrules:\n  - "+c.rule+"\n", engine.Config{Environ: c.environ})
			s.out(time.Millisecond, c.output)
			s.wantResult(engine.Failed, exitcode.Failed)
			if !strings.Contains(s.result.Reason, c.reason) {
				t.Fatalf("reason %q, want it to hold %q", s.result.Reason, c.reason)
			}
			s.wantSent()
		})
	}
	// Set, the variable is typed; "NAME" in env tests for it.
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
rules:
  - {name: token, match: "Token:", line: "{{ env.CLAI_TOKEN }}", limit: 1}
  - {name: user, match: "User:", line: "{{ 'CLAI_USER' in env ? env.CLAI_USER : 'nobody' }}", limit: 1}
`, engine.Config{Environ: map[string]string{"CLAI_TOKEN": "t0k"}})
	s.out(time.Millisecond, "Token: ")
	s.out(time.Millisecond, "t0k\r\nUser: ")
	s.wantSent("t0k\r", "nobody\r")
}
