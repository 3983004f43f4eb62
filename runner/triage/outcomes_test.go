package triage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/clai-sh/clai/runner/triage"
)

// Wait returns a decision made before or after it was asked; the first
// decision stands.
func TestOutcomesWaitForTheDecision(t *testing.T) {
	t.Parallel()
	o := triage.NewOutcomes(8)
	later := decideAsync(t.Context(), o.Wait, "q1")
	o.Decided("q1", "a summary", false)
	o.Decided("q1", "", true)
	if v := got(t, later); v != (result{summary: "a summary"}) {
		t.Fatalf("waited for %+v, want the first decision", v)
	}
	o.Decided("q2", "", true)
	if v := got(t, decideAsync(t.Context(), o.Wait, "q2")); !v.answered {
		t.Fatalf("waited for %+v, want answered", v)
	}
}

// Beyond the bound, the oldest decision is forgotten: a wait for it lasts
// until its context ends, and leaves the question to people.
func TestOutcomesForgetTheOldest(t *testing.T) {
	t.Parallel()
	o := triage.NewOutcomes(2)
	for i := 1; i <= 3; i++ {
		o.Decided(fmt.Sprintf("q%d", i), "", true)
	}
	if v := got(t, decideAsync(t.Context(), o.Wait, "q3")); !v.answered {
		t.Fatalf("q3: waited for %+v, want answered", v)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if v := got(t, decideAsync(ctx, o.Wait, "q1")); v.answered {
		t.Fatalf("q1 is still remembered past the bound: %+v", v)
	}
}
