package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// On a screen, a dangerous line that scrolls off within a flood, before the
// screen is ever looked at, is still caught: danger rules read the stream too.
func TestScreenFloodHidesNoDanger(t *testing.T) {
	t.Parallel()
	yaml := header + `
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: continue, match: {regex: 'Continue\? \[y/n\] $'}, line: "y", limit: 1}
danger:
  - {name: wipe, match: "rm -rf /", action: abort}
`
	for _, hidden := range []string{"About to run: rm -rf /", "About to run: ls /"} {
		s := newSim(t, yaml, engine.Config{Rows: 24, Cols: 80})
		var log strings.Builder
		for i := range 3000 {
			if i == 1500 {
				log.WriteString("\x1b[1m" + hidden + "\x1b[0m\r\n")
			}
			log.WriteString("\x1b[2m12:00:01\x1b[0m \x1b[32mINFO \x1b[0m compiling internal/pkg/file_" + strings.Repeat("x", i%40) + ".go\r\n")
		}
		out := log.String() + "Continue? [y/n] "
		for p := out; len(p) > 0; p = p[min(len(p), 4096):] {
			s.out(time.Millisecond, p[:min(len(p), 4096)])
		}
		s.advance(200 * time.Millisecond)
		if strings.Contains(hidden, "rm -rf") {
			s.wantSent()
			s.wantResult(engine.Aborted, exitcode.Danger)
			continue
		}
		s.wantSent("y\r")
	}
}
