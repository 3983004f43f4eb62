package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// Headless, a hand-over to a person ends the run at once with exit 4, and the
// reason names what caused it: nobody can take over, so waiting for
// timeouts.prompt would only end in a timeout.
func TestHeadlessHandOverEndsAtOnce(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
rules:
  - {name: proceed, match: "Proceed? [y/N]", line: "y", limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`, engine.Config{})
	s.out(time.Millisecond, "About to run: rm -rf /\r\nProceed? [y/N] ")
	s.wantResult(engine.Manual, engine.ExitManual)
	s.wantSent()
	if r := s.e.Result().Reason; !strings.Contains(r, `danger rule "wipe" matched "rm -rf /`) || !strings.Contains(r, "nobody") {
		t.Fatalf("reason %q names neither the rule and its text nor why the run ended", r)
	}
}

// With a person at the terminal the run goes on in MANUAL: they drive.
func TestInteractiveHandOverWaitsForThePerson(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`, engine.Config{Interactive: true})
	s.out(time.Millisecond, "About to run: rm -rf /\r\nProceed? [y/N] ")
	s.advance(time.Hour)
	s.wantState(engine.Manual)
	if s.e.Result() != nil {
		t.Fatalf("the run ended: %+v", s.e.Result())
	}
}

// When the program ends after a hand-over, the reason still names what caused the
// hand-over, not only that clai was in MANUAL.
func TestProgramEndAfterHandOverNamesTheCause(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`, engine.Config{Interactive: true})
	s.out(time.Millisecond, "About to run: rm -rf /\r\nProceed? [y/N] ")
	s.exit(time.Second, 0)
	s.wantResult(engine.Manual, engine.ExitManual)
	if r := s.e.Result().Reason; !strings.Contains(r, `danger rule "wipe" matched "rm -rf /`) || !strings.Contains(r, "ended") {
		t.Fatalf("reason %q does not say the program ended after the hand-over caused by the danger rule", r)
	}
}
