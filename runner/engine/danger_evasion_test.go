package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/evasions"
	"github.com/clai-sh/clai/runner/engine"
)

// evasionCorpus is the stripper's corpus of drawings that hide a command from a
// reader of raw bytes (see package evasions).
func evasionCorpus(t *testing.T) []evasions.Drawing {
	t.Helper()
	list, err := evasions.Read("../stream/testdata/evasions.txt")
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestDangerSeesWhatATerminalShows draws a dangerous command in each of the
// evasions' ways, then asks to proceed: in the default stream mode the danger rule must
// fire and nothing may be sent, whether the drawing arrives in one read or one
// byte at a time.
func TestDangerSeesWhatATerminalShows(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/n]", line: "y", limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`
	for _, c := range evasionCorpus(t) {
		for _, bytewise := range []bool{false, true} {
			s := newSim(t, pb, engine.Config{})
			if bytewise {
				for k := range len(c.Drawn) {
					s.out(time.Millisecond, c.Drawn[k:k+1])
				}
			} else {
				s.out(time.Millisecond, c.Drawn)
			}
			s.out(time.Millisecond, "\r\nProceed? [y/n] ")
			s.advance(time.Second)
			if len(s.sent) > 0 || s.dangerHits("wipe") == 0 {
				t.Errorf("%s (%q, byte by byte: %v): sent %q, %d danger hits\n%s",
					c.Name, c.Drawn, bytewise, s.sent, s.dangerHits("wipe"), s.timeline())
				continue
			}
			s.wantState(engine.Manual)
		}
	}
}

// TestRedrawnDangerCountsOnce redraws a dangerous line: drawn again over itself
// it is not seen again, a spinner in front of it does not make it new, but a
// change that makes the text dangerous, however small, is a new hit.
func TestRedrawnDangerCountsOnce(t *testing.T) {
	t.Parallel()
	const pb = header + `
danger:
  - {name: wipe, match: {regex: '\brm\s+-rf\s+/(\s|$)'}, action: manual}
`
	s := newSim(t, pb, engine.Config{Interactive: true})
	s.out(time.Millisecond, "⠋ running rm -rf / ")
	for range 100 {
		s.out(time.Millisecond, "\r⠋ running rm -rf / ")
		s.out(time.Millisecond, "\r⠋ running rm\x1b[1C-rf\x1b[1C/\x1b[1C")
	}
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("the same line drawn again: %d danger hits, want 1\n%s", n, s.timeline())
	}
	frames := []string{"⠙", "⠹", "⠸", "⠼"}
	for i := range 100 {
		s.out(time.Millisecond, "\r"+frames[i%len(frames)])
	}
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("100 frames of a spinner in front: %d danger hits, want 1\n%s", n, s.timeline())
	}
	s.wantState(engine.Manual)

	// The text before the command turns it into one: new.
	s.out(time.Millisecond, "\r\n⠋ running xrm -rf / ")
	s.out(time.Millisecond, "\r⠙ running  ")
	if n := s.dangerHits("wipe"); n != 2 {
		t.Fatalf("a word boundary made by a redraw: %d danger hits, want 2\n%s", n, s.timeline())
	}
	// The text after it does.
	s.out(time.Millisecond, "\r\n⠋ running rm -rf /x")
	s.out(time.Millisecond, "\b ")
	if n := s.dangerHits("wipe"); n != 3 {
		t.Fatalf("a path cut short by a redraw: %d danger hits, want 3\n%s", n, s.timeline())
	}
	// Erased, then drawn again: new.
	s.out(time.Millisecond, "\r\x1b[K⠋ running")
	s.out(time.Millisecond, "\r⠙ running rm -rf / ")
	if n := s.dangerHits("wipe"); n != 4 {
		t.Fatalf("drawn again after it was erased: %d danger hits, want 4\n%s", n, s.timeline())
	}
}

// TestRedrawnRowsCountOnce redraws a screen of rows with the cursor moved up,
// as a TUI does: a spinner on the row of a dangerous command does not make it
// new, but the command drawn over another row is.
func TestRedrawnRowsCountOnce(t *testing.T) {
	t.Parallel()
	const pb = header + `
danger:
  - {name: wipe, match: {regex: '\brm\s+-rf\s+/(\s|$)'}, action: manual}
`
	s := newSim(t, pb, engine.Config{Interactive: true})
	s.out(time.Millisecond, "⠋ running rm -rf /\r\n  status\r\n")
	frames := []string{"⠙", "⠹", "⠸", "⠼"}
	for i := range 100 {
		s.out(time.Millisecond, "\x1b[2A\r"+frames[i%len(frames)]+" running rm -rf /\r\n  status\r\n")
	}
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("100 frames of a spinner on the command's row: %d danger hits, want 1\n%s", n, s.timeline())
	}
	s.out(time.Millisecond, "\x1b[A\r\x1b[2Crm -rf /\r\n")
	if n := s.dangerHits("wipe"); n != 2 {
		t.Fatalf("the command drawn over the status row: %d danger hits, want 2\n%s", n, s.timeline())
	}
}

// TestDangerFollowsTheTerminalWidth draws a dangerous command over the start of
// a long line's last row: the engine knows where that row starts from the
// terminal's width, and from a resize.
func TestDangerFollowsTheTerminalWidth(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/n]", line: "y", limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`
	// 40 columns of padding, then "xx -rf /" at the start of the second row.
	drawn := strings.Repeat(".", 40) + "xx -rf /\rrm\r\nProceed? [y/n] "
	s := newSim(t, pb, engine.Config{Rows: 24, Cols: 40})
	s.out(time.Millisecond, drawn)
	s.advance(time.Second)
	s.wantSent()
	s.wantState(engine.Manual)

	s = newSim(t, pb, engine.Config{Rows: 24, Cols: 80})
	s.e.Resize(24, 40)
	s.out(time.Millisecond, drawn)
	s.advance(time.Second)
	s.wantSent()
	s.wantState(engine.Manual)
}
