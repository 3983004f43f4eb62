package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// A screen that only grew by plain output (text, colours, line ends) since it
// was last matched is matched as soon as output pauses, as the stream is; a
// redraw waits for settle, so that a screen drawn in several writes is matched
// whole.
func TestScreenMatchesPlainOutputWhenItPauses(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`settings: {match: screen, settle: 300ms, min_send_interval: 0s}
rules:
  - {name: name, match: "Name:", line: "bob", limit: 5}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "\x1b[32mbuilding\x1b[m\r\nName: ")
	s.advance(2 * time.Millisecond)
	s.wantSent("bob\r")
	s.out(time.Millisecond, "bob\r\nok\r\n")
	// Drawn over an erased line: a redraw.
	s.out(time.Millisecond, "\x1b[2K\rName: ")
	s.advance(100 * time.Millisecond)
	s.wantSent("bob\r")
	s.advance(250 * time.Millisecond)
	s.wantSent("bob\r", "bob\r")
}

// A choose waits for settle even on plain output: a menu may be drawn in
// several writes, and an option not drawn yet must not be missed.
func TestScreenChooseWaitsForSettleOnPlainOutput(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`settings: {match: screen, settle: 300ms, min_send_interval: 0s}
steps:
  - {expect: "Pick one", choose: "Green"}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "Pick one\r\n> 1. Red\r\n")
	s.advance(100 * time.Millisecond)
	s.wantSent()
	s.out(time.Millisecond, "  2. Green\r\n")
	s.advance(400 * time.Millisecond)
	if len(s.sent) == 0 {
		t.Fatalf("nothing chosen once the menu was whole:\n%s", s.timeline())
	}
}
