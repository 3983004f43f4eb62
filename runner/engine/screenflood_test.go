package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
)

// floodLines returns n coloured log lines, ended by CR LF as a terminal sends
// them, with extra hidden as line hide (when hide < n).
func floodLines(n, hide int, extra string) string {
	var b strings.Builder
	for i := range n {
		if i == hide {
			b.WriteString(extra + "\r\n")
		}
		fmt.Fprintf(&b, "\x1b[2m12:00:%02d\x1b[0m \x1b[32mINFO \x1b[0m compiling internal/pkg%d/file_%d.go\r\n", i%60, i%97, i)
	}
	return b.String()
}

// A log flooding a screen-matched run is taken in by the screen once the
// output settles, not at every read (each time the loops ask the engine when
// to wake it); the prompt at its end is answered then, and only then.
func TestScreenFloodTakenInOnceSettled(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("test.yaml", []byte(`version: 1
name: flood
spawn: {command: [prog]}
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: continue, match: {regex: 'Continue\? \[y/n\] $'}, line: "y", limit: 1}
`))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	e := NewEngine(pb, Config{Rows: 24, Cols: 80})
	scr := e.view.(*screenView).scr
	now := time.Unix(1_700_000_000, 0)
	e.Start(now)
	out := floodLines(2000, -1, "") + "Continue? [y/n] "
	for p := out; len(p) > 0; p = p[min(len(p), 4096):] {
		now = now.Add(time.Millisecond)
		if acts := e.Output(now, []byte(p[:min(len(p), 4096)])); slices.ContainsFunc(acts, isSendAction) {
			t.Fatal("answered before the output settled")
		}
		next, ok := e.Deadline()
		if want := now.Add(100 * time.Millisecond); !ok || next.After(want) {
			t.Fatalf("deadline %v, %v; want the settle at %v", next, ok, want)
		}
		if !scr.Pending() && len(p) > 4096 {
			t.Fatalf("the screen took the output in before it settled (%d bytes to go)", len(p))
		}
	}
	now = now.Add(100 * time.Millisecond)
	acts := e.Tick(now)
	if !slices.ContainsFunc(acts, isSendAction) {
		t.Fatalf("no answer once settled; the screen shows:\n%s", scr.Text())
	}
	if scr.Pending() {
		t.Error("the screen still holds output back after matching")
	}
}

func isSendAction(a Action) bool {
	_, ok := a.(*Send)
	return ok
}
