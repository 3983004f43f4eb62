package engine_test

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// A person's answer is an answer in both matching modes: once the person at
// the terminal typed after a question, that question is not answered again by
// a rule or a step, though it stays on screen with the person's answer echoed
// after it; the same question asked again afterwards is new and is answered.
func TestPersonsAnswerIsAnAnswer(t *testing.T) {
	t.Parallel()
	// Each case answers a first question, then must wait before it may answer
	// the next: the person answers that one meanwhile.
	cases := []struct {
		name, settings, body, first, answer string
	}{
		{"a rule in its cooldown", "min_send_interval: 0s", `
rules:
  - {name: name, match: "Name:", line: "bob", cooldown: 5s, limit: 5}
`, "Name: ", "bob"},
		{"a step held back by min_send_interval", "min_send_interval: 5s", `
steps:
  - {expect: "Start?", line: "y"}
  - expect:
      - {case: "Name:", line: "bob", repeat: true}
`, "Start? ", "y"},
	}
	for _, c := range cases {
		for _, mode := range []string{"stream", "screen"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				s := newSim(t, header+"settings: {match: "+mode+", settle: 100ms, "+c.settings+"}\n"+c.body, engine.Config{Interactive: true, Rows: 10, Cols: 60})
				s.out(time.Millisecond, c.first)
				s.advance(150 * time.Millisecond)
				first := c.answer + "\r"
				s.wantSent(first)
				s.out(time.Millisecond, c.answer+"\r\n")
				s.out(10*time.Millisecond, "Name: ")
				s.advance(500 * time.Millisecond)
				s.wantSent(first)
				s.apply(s.e.Input(s.now, 6))
				s.out(time.Millisecond, "alice\r\nhello alice\r\n")
				s.advance(10 * time.Second)
				s.wantSent(first)
				// Asked once more: a new question, which clai answers.
				s.out(time.Millisecond, "Name: ")
				s.advance(200 * time.Millisecond)
				s.wantSent(first, "bob\r")
			})
		}
	}
}

// On a screen clai answers once the screen has been still for settle; a person
// who answers sooner has answered, and the question with the answer echoed
// after it is not answered again. Asked again below, it is new.
func TestScreenPersonAnswersBeforeSettle(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"rule", "step"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			body := "rules:\n  - {name: name, match: \"Name:\", line: \"bob\", limit: 5}\n"
			if kind == "step" {
				body = "steps:\n  - expect:\n      - {case: \"Name:\", line: \"bob\", repeat: true}\n"
			}
			s := newSim(t, header+"settings: {match: screen, settle: 300ms, min_send_interval: 0s}\n"+body, engine.Config{Interactive: true, Rows: 10, Cols: 60})
			// The question is drawn over an erased line: a redraw, which is
			// matched once the screen has been still for settle.
			s.out(time.Millisecond, "\x1b[2K\rName: ")
			s.advance(100 * time.Millisecond)
			s.apply(s.e.Input(s.now, 6))
			s.out(10*time.Millisecond, "alice\r\nhello alice\r\n")
			s.advance(5 * time.Second)
			s.wantSent()
			s.out(time.Millisecond, "\x1b[2K\rName: ")
			s.advance(400 * time.Millisecond)
			s.wantSent("bob\r")
		})
	}
}

// A deny danger rule's refusal waits for the prompt after the dangerous text;
// when it must wait to be sent and the person answers that prompt meanwhile,
// the answered prompt is not refused, on a stream or on a screen.
func TestRefusalSkipsAPromptThePersonAnswered(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: "+mode+`, settle: 100ms, min_send_interval: 5s}
rules:
  - {name: start, match: "Start?", line: "y", limit: 1}
  - {name: proceed, match: "Proceed? [y/N]", line: "y", limit: 5}
danger:
  - {name: wipe, match: "rm -rf /", action: deny, line: "n"}
`, engine.Config{Interactive: true, Rows: 10, Cols: 60})
			s.out(time.Millisecond, "Start? ")
			s.advance(150 * time.Millisecond)
			s.wantSent("y\r")
			s.out(time.Millisecond, "y\r\nAbout to run: rm -rf /\r\nProceed? [y/N] ")
			s.advance(500 * time.Millisecond)
			s.apply(s.e.Input(s.now, 2))
			s.out(10*time.Millisecond, "n\r\ncancelled\r\n")
			s.advance(10 * time.Second)
			s.wantSent("y\r")
		})
	}
}

// A key typed at the terminal answers the question on screen: the screen
// still shows it until the program reacts, and no second question opens for
// it meanwhile (it would reach every channel and close as moved on at once).
func TestKeyAtTheTerminalOpensNoQuestionForTheSameScreen(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 300ms}\n", engine.Config{Interactive: true, Rows: 10, Cols: 60})
	s.out(time.Millisecond, "Run rm -rf /tmp/x?\r\n› 1. Yes\r\n  2. No (esc)\r\n")
	s.advance(time.Second)
	s.wantState(engine.Prompting)
	// Codex CLI sets its window title every second while it waits.
	s.out(time.Millisecond, "\x1b]0;codex\x07")
	s.advance(time.Second)
	s.apply(s.e.Input(s.now, 1))
	s.advance(50 * time.Millisecond)
	if qs := s.questions(engine.EventQuestion); len(qs) != 1 {
		t.Fatalf("questions opened: %d, want 1\n%s", len(qs), s.timeline())
	}
	// The program goes on and asks something else: a new question.
	s.out(10*time.Millisecond, "\x1b[2J\x1b[HName: ")
	s.advance(time.Second)
	if qs := s.questions(engine.EventQuestion); len(qs) != 2 {
		t.Fatalf("questions opened: %d, want 2\n%s", len(qs), s.timeline())
	}
}
