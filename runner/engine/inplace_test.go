package engine_test

import (
	"strings"
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

// Codex CLI asks about the same command twice in a row on the same rows: it
// takes the first dialog down in one frame (a synchronized update) and draws
// the second 90 ms later, long before the screen is still. The frame between
// says the second dialog is new. A program that marks no frames (Gemini CLI)
// shows the frame between for as long as it pauses there, and a pause of
// frameQuiet says the same; taken down and drawn again in one burst, the
// dialog reads as the one answered.
func TestSameDialogAgainAfterAFrameWithoutIt(t *testing.T) {
	t.Parallel()
	frame := func(s string) string { return "\x1b[?2026h" + s + "\x1b[?2026l" }
	dialog := "\x1b[6;1H\x1b[2KRun this command?\x1b[7;1H\x1b[2K  $ ls -la\x1b[8;1H\x1b[2K  › 1. Yes\x1b[9;1H\x1b[2K    2. No"
	// The frame between, drawn whole: the cursor ends below what it drew.
	taken := "\x1b[6;1H\x1b[J\x1b[6;1H• Running ls -la\r\n  └ total 8\r\n"
	history := func(n int) string { return "\x1b[1;1H\x1b[2K" + strings.Repeat("• Ran ls -la ", n) }
	plain := func(s string) string { return s }
	for _, c := range []struct {
		name  string
		frame func(string) string
		gap   time.Duration // how long the frame between shows
		want  []string
	}{
		{"with frames", frame, 5 * time.Millisecond, []string{"\r", "\r"}},
		{"a pause between, without frames", plain, 80 * time.Millisecond, []string{"\r", "\r"}},
		{"in one burst, without frames", plain, 5 * time.Millisecond, []string{"\r"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+`settings: {match: screen, settle: 300ms}
rules:
  - name: approve
    match: {regex: 'Run this command\?\n *\$ (?P<cmd>[^\n]+?) *\n *› 1\. Yes'}
    keys: [enter]
`, engine.Config{Rows: 12, Cols: 60})
			s.out(time.Millisecond, c.frame(history(0)+dialog))
			s.advance(400 * time.Millisecond)
			s.wantSent("\r")
			s.out(13*time.Millisecond, c.frame(history(1)+taken))
			s.out(c.gap, c.frame(history(1)+dialog))
			s.advance(400 * time.Millisecond)
			// Redrawn as it is, frame after frame: not new.
			for range 3 {
				s.out(100*time.Millisecond, c.frame(history(1)+dialog))
			}
			s.advance(time.Second)
			s.wantSent(c.want...)
		})
	}
}

// A prompt a rule answers once its cooldown ends is no question for a
// person meanwhile: the second approval dialog for the same command, drawn
// in frames 90 ms after the first was answered, waits out the rule's cooldown
// without a question that would reach every channel and close as moved on a
// moment later.
func TestNoQuestionWhileARuleWaitsOutItsCooldown(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`settings: {match: screen, settle: 300ms}
timeouts: {prompt: 1h}
rules:
  - name: approve
    match: {regex: 'Run this command\?\n *\$ (?P<cmd>[^\n]+?) *\n *› 1\. Yes'}
    keys: [enter]
    cooldown: 1s
`, engine.Config{Remote: true, Rows: 12, Cols: 60})
	frame := func(s string) string { return "\x1b[?2026h" + s + "\x1b[?2026l" }
	dialog := frame("\x1b[6;1H\x1b[2KRun this command?\x1b[7;1H\x1b[2K  $ ls -la\x1b[8;1H\x1b[2K  › 1. Yes\x1b[9;1H\x1b[2K    2. No (esc)")
	s.out(time.Millisecond, dialog)
	s.advance(400 * time.Millisecond)
	s.wantSent("\r")
	s.out(13*time.Millisecond, frame("\x1b[6;1H\x1b[J\x1b[6;1H• Running ls -la"))
	s.out(80*time.Millisecond, dialog)
	s.advance(2 * time.Second)
	s.wantSent("\r", "\r")
	if qs := s.questions(engine.EventQuestion); len(qs) != 0 {
		t.Fatalf("questions opened: %d\n%s", len(qs), s.timeline())
	}
}
