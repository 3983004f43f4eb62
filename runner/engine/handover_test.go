package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
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
	s.wantResult(engine.Manual, exitcode.Manual)
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
	s.wantResult(engine.Manual, exitcode.Manual)
	if r := s.e.Result().Reason; !strings.Contains(r, `danger rule "wipe" matched "rm -rf /`) || !strings.Contains(r, "ended") {
		t.Fatalf("reason %q does not say the program ended after the hand-over caused by the danger rule", r)
	}
}

// A hand-over a person took ends as the program does, and says who decided:
// at the terminal, or by an answer from elsewhere; a later hand-over nobody
// took ends in MANUAL again.
func TestTakenHandOverEndsAsTheProgramDoes(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {settle: 100ms}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`
	for _, c := range []struct {
		name    string
		take    func(s *sim)
		code    int
		state   engine.State
		decided string
	}{
		{"typed at the terminal", func(s *sim) { s.apply(s.e.Input(s.now.Add(time.Second), 2)) }, 0, engine.Done, "the person at the terminal"},
		{"answered", func(s *sim) {
			if _, err := s.answer(ask.Answer{Choose: "N", By: "alice", Channel: ask.ChannelCLI}); err != nil {
				s.t.Fatal(err)
			}
		}, 0, engine.Done, "alice through cli"},
		{"answered, the program failed", func(s *sim) {
			if _, err := s.answer(ask.Answer{Choose: "N", By: "alice", Channel: ask.ChannelCLI}); err != nil {
				s.t.Fatal(err)
			}
		}, 1, engine.Failed, "alice through cli"},
		{"answered, then a hand-over nobody took", func(s *sim) {
			if _, err := s.answer(ask.Answer{Choose: "N", By: "alice", Channel: ask.ChannelCLI}); err != nil {
				s.t.Fatal(err)
			}
			s.out(time.Second, "\r\nAbout to run: rm -rf /\r\nProceed? [y/N] ")
		}, 0, engine.Manual, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, pb, engine.Config{Interactive: true})
			s.out(time.Millisecond, "About to run: rm -rf /\r\nProceed? [y/N] ")
			s.advance(time.Second)
			s.wantState(engine.Manual)
			c.take(s)
			s.exit(time.Second, c.code)
			want := c.code
			if c.state == engine.Manual {
				want = exitcode.Manual
			}
			s.wantResult(c.state, want)
			r := s.e.Result()
			if r.DecidedBy != c.decided || c.decided != "" && !strings.Contains(r.Reason, c.decided+" decided at the hand-over") {
				t.Fatalf("decided by %q, want %q: %s", r.DecidedBy, c.decided, r.Reason)
			}
		})
	}
}
