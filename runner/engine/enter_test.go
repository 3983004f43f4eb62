package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// With settings.enter: after-text a line is typed as its text, then its Enter
// once the text shows and EnterPause later: a program that reads text and Enter in one write as a
// paste (Codex CLI, Gemini CLI) would put the Enter in its input box as a new
// line. The default types both at once.
func TestEnterAfterTheTextShows(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: "+mode+", settle: 100ms, enter: after-text}\n"+
				"rules:\n  - {name: ask, match: \"Task:\", line: \"run the tests\", limit: 1}\n",
				engine.Config{Rows: 10, Cols: 60})
			s.out(time.Millisecond, "Task: ")
			s.advance(150 * time.Millisecond)
			s.wantSent("run the tests")
			// Nothing shows yet: the Enter waits.
			s.advance(time.Second)
			s.wantSent("run the tests")
			s.out(time.Millisecond, "run the tests")
			// Shown: the Enter follows a pause, so that it is not read as
			// the end of a paste.
			s.advance(60 * time.Millisecond)
			s.wantSent("run the tests")
			s.advance(200 * time.Millisecond)
			s.wantSent("run the tests", "\r")
		})
	}
}

func TestEnterWithTextByDefault(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\nrules:\n  - {name: ask, match: \"Task:\", line: \"go\", limit: 1}\n", engine.Config{})
	s.out(time.Millisecond, "Task: ")
	s.advance(150 * time.Millisecond)
	s.wantSent("go\r")
}

// When the text never shows, the program is not where the line was meant for:
// the Enter, which could confirm something else, is not pressed, and an error
// event says so. The same text shown before the line was typed does not count.
func TestEnterNotPressedWhenTheTextNeverShows(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 100ms, enter: after-text}\n"+
		"rules:\n  - {name: ask, match: \"Task:\", line: \"continue\", limit: 1}\n",
		engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "continue\r\nTask: ")
	s.advance(150 * time.Millisecond)
	s.wantSent("continue")
	s.out(time.Second, "\x1b[5;1Hsomething else")
	s.advance(10 * time.Second)
	s.wantSent("continue")
	if !strings.Contains(s.timeline(), `no line showing the typed text "continue" within 5s`) {
		t.Fatalf("no error event for the Enter not pressed:\n%s", s.timeline())
	}
}

// The nudge is a line too, and a long line's Enter waits for its last
// characters, which a narrow input box shows on a row of their own.
func TestNudgeEnterAfterText(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 300ms, enter: after-text}
timeouts: {idle: 10s, prompt: 1m}
nudge: {sequence: ["please go on with the plan you made earlier\r"], gap: 2s, max: 1}
`, engine.Config{Rows: 10, Cols: 30})
	s.out(time.Millisecond, "Working...\r\n")
	s.advance(10 * time.Second)
	s.wantSent("please go on with the plan you made earlier")
	s.out(100*time.Millisecond, "> please go on with the plan y\r\nou made earlier")
	s.advance(300 * time.Millisecond)
	s.wantSent("please go on with the plan you made earlier", "\r")
}

// A menu's number is a key, not a line: typed with its Enter at once.
func TestChooseByNumberKeepsItsEnter(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 100ms, enter: after-text}\n"+
		"rules:\n  - {name: pick, match: \"Pick one\", choose: \"Blue\", limit: 1}\n",
		engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "Pick one\r\n1. Red\r\n2. Blue\r\nChoice: ")
	s.advance(150 * time.Millisecond)
	s.wantSent("2\r")
}

// A nudge is text: typed into a dialog its letters pick options (Codex CLI
// declines a command with "n"). While the program waits at a dialog that
// takes keys, left to a person, no nudge is typed; at a prompt without one it
// is.
func TestNoNudgeIntoADialog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, screen string
		want         []string
	}{
		{"dialog", "Run rm -rf /tmp/x?\r\n› 1. Yes, proceed (y)\r\n  2. No (esc)\r\n", nil},
		{"prompt", "Done.\r\n› ", []string{"continue"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+`
settings: {match: screen, settle: 300ms, enter: after-text}
timeouts: {idle: 10s, prompt: 1h}
nudge: {sequence: ["continue\r"], gap: 2s, max: 2}
`, engine.Config{Remote: true, Rows: 10, Cols: 60})
			s.out(time.Millisecond, c.screen)
			s.advance(time.Minute)
			s.wantSent(c.want...)
		})
	}
}

// A person's text answer is a line too: its Enter waits for the text, and is
// theirs, as the text is.
func TestPersonsLineEnterAfterText(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 300ms, enter: after-text}\n", engine.Config{Remote: true, Rows: 10, Cols: 60})
	s.out(time.Millisecond, "What next? ")
	s.advance(time.Second)
	s.wantState(engine.Prompting)
	text := "fix the tests"
	if _, err := s.answer(ask.Answer{Text: &text, By: "alice"}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("fix the tests")
	s.out(10*time.Millisecond, "fix the tests")
	s.advance(300 * time.Millisecond)
	s.wantSent("fix the tests", "\r")
	if len(s.person) != 2 || !s.person[0] || !s.person[1] {
		t.Fatalf("the sends were a person's: %v, want both", s.person)
	}
}
