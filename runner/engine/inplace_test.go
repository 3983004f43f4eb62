package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// A program that draws each approval dialog on the same rows (Codex CLI) asks
// a new question when the command in it changes: the rule fires again. The
// same dialog redrawn, while a spinner turns elsewhere, is not new.
func TestDialogDrawnAgainInPlaceForAnotherCommand(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`settings: {match: screen, settle: 100ms}
rules:
  - name: approve
    match: {regex: 'Run this command\?\n *\$ (?P<cmd>[^\n]+?) *\n *› 1\. Yes'}
    keys: [enter]
`, engine.Config{Rows: 12, Cols: 60})
	dialog := func(cmd string) string {
		return "\x1b[6;1H\x1b[2KRun this command?\x1b[7;1H\x1b[2K  $ " + cmd + "\x1b[8;1H\x1b[2K  › 1. Yes\x1b[9;1H\x1b[2K    2. No"
	}
	spinner := func(c string) string { return "\x1b[1;1H\x1b[2K" + c + " working" }
	s.out(time.Millisecond, spinner("-")+dialog("ls -la"))
	s.advance(200 * time.Millisecond)
	s.wantSent("\r")
	// The program takes the Enter and asks about the next command where the
	// first dialog was.
	s.out(50*time.Millisecond, spinner("\\")+dialog("git status"))
	s.advance(200 * time.Millisecond)
	s.wantSent("\r", "\r")
	// Redrawn as it is, the spinner turning: no new question.
	for _, c := range []string{"|", "/", "-"} {
		s.out(300*time.Millisecond, spinner(c)+dialog("git status"))
		s.advance(200 * time.Millisecond)
	}
	s.wantSent("\r", "\r")
}
