package engine

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
)

// TestFailedRenderKeepsLastAnswer: answers are rendered into memory the engine
// reuses, and a template that fails partway must not spoil the last answer,
// which a retry sends again.
func TestFailedRenderKeepsLastAnswer(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("test.yaml", []byte(`version: 1
name: render
spawn: {command: [prog]}
settings: {min_send_interval: 0s}
rules:
  - {name: ok, match: {regex: 'first (?P<n>\d+): $'}, line: "alpha{{ match.n }}"}
  - {name: bad, match: {regex: 'second (?P<n>\d+): $'}, line: "beta{{ 10 % int(match.n) }}"}
`))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	e := NewEngine(pb, Config{})
	now := time.Unix(1_700_000_000, 0)
	e.Start(now)
	for _, out := range []string{"first 1: ", "first 2: ", "first 3: "} {
		now = now.Add(time.Second)
		e.Output(now, []byte(out))
	}
	if got := string(e.verifier.answer.Data); got != "alpha3\r" {
		t.Fatalf("last answer %q, want %q", got, "alpha3\r")
	}
	now = now.Add(time.Second)
	e.Output(now, []byte("second 0: "))
	if r := e.Result(); r == nil || r.State != Failed {
		t.Fatalf("result %+v after a failed template, want FAILED", r)
	}
	if got := string(e.verifier.answer.Data); got != "alpha3\r" {
		t.Errorf("last answer %q after a failed render, want %q", got, "alpha3\r")
	}
}
