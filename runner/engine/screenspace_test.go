package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
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
	s := newSim(t, pb, engine.Config{Rows: 5, Cols: 40})
	s.out(time.Millisecond, "Password:")
	s.advance(50 * time.Millisecond)
	s.wantSent()
	// The space arrives on its own: only the cursor moves.
	s.out(time.Millisecond, " ")
	s.advance(50 * time.Millisecond)
	s.wantSent("hunter2\r")

	hidden := newSim(t, pb, engine.Config{Rows: 5, Cols: 40})
	hidden.out(time.Millisecond, "\x1b[?25lPassword: ")
	hidden.advance(50 * time.Millisecond)
	hidden.wantSent()
}
