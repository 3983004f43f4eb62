package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// A clock redrawn elsewhere on the screen while a prompt waits neither
// closes its question nor makes an answer to it stale; one that ticks faster
// than settings.settle does not keep the prompt from being asked.
func TestATickerDoesNotReopenTheQuestion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode  string
		every time.Duration
	}{{"stream", 2 * time.Second}, {"screen", 2 * time.Second}, {"stream", 200 * time.Millisecond}, {"screen", 200 * time.Millisecond}} {
		t.Run(fmt.Sprintf("%s/%s", c.mode, c.every), func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: "+c.mode+", settle: 300ms}\ntimeouts: {prompt: 1h}\n", engine.Config{Rows: 10, Cols: 60, Remote: true})
			n := 0
			tick := func() string {
				n++
				return fmt.Sprintf("\x1b7\x1b[1;1H\x1b[2Kuptime %.1fs\x1b8", float64(n)*c.every.Seconds())
			}
			s.out(time.Millisecond, tick()+"\x1b[3;1HMigrate now? [y/N] ")
			for s.e.Question() == nil && n < 10 {
				s.out(c.every, tick())
			}
			q := s.e.Question()
			if q == nil {
				t.Fatalf("no question\n%s", s.timeline())
			}
			for range 60 {
				s.out(c.every, tick())
			}
			if opened := s.questions(engine.EventQuestion); len(opened) != 1 {
				t.Fatalf("%d questions for one prompt\n%s", len(opened), s.timeline())
			}
			s.wantState(engine.Prompting)
			if _, err := s.answer(ask.Answer{Question: q.ID, ScreenHash: q.ScreenHash, Choose: "y"}); err != nil {
				t.Fatalf("the answer to the first question: %v\n%s", err, s.timeline())
			}
			s.wantSent("y\r")
		})
	}
}

// A spinner turning beside a menu, and a screen repainted whole every two
// seconds as watch(1) does, leave the question as it is; the menu's mark
// moved to another entry, or the prompt's line changed, is a new question.
func TestQuestionIsItsPromptNotTheScreen(t *testing.T) {
	t.Parallel()
	menu := func(current int) string {
		var b strings.Builder
		b.WriteString("\x1b[3;1HDeploy where?")
		for i, o := range []string{"staging", "prod"} {
			mark := " "
			if i == current {
				mark = "❯"
			}
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s %d. %s", 4+i, mark, i+1, o)
		}
		return b.String() + "\x1b[6;1H"
	}
	spinner := func(n int) string { return "\x1b7\x1b[1;1H\x1b[2K" + string("|/-\\"[n%4]) + " building\x1b8" }
	watch := func(n int) string {
		return fmt.Sprintf("\x1b[H\x1b[2JEvery 2.0s: date    %02d:00\r\n\r\nMigrate now? [y/N] ", n)
	}
	for _, c := range []struct {
		name, mode   string
		first, again func(n int) string
		// change is drawn last: a new question, or "" for none.
		change string
	}{
		{"spinner beside a menu", "stream", func(n int) string { return spinner(n) + menu(0) }, spinner, "\x1b[4;1H\x1b[2K  1. staging\x1b[5;1H\x1b[2K❯ 2. prod\x1b[6;1H"},
		{"spinner beside a menu", "screen", func(n int) string { return spinner(n) + menu(0) }, spinner, "\x1b[4;1H\x1b[2K  1. staging\x1b[5;1H\x1b[2K❯ 2. prod\x1b[6;1H"},
		{"watch", "screen", watch, watch, "\x1b[H\x1b[2JEvery 2.0s: date    99:00\r\n\r\nMigrate later? [y/N] "},
	} {
		t.Run(c.name+"/"+c.mode, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: "+c.mode+", settle: 100ms}\ntimeouts: {prompt: 1h}\n", engine.Config{Rows: 10, Cols: 60, Remote: true})
			s.out(time.Millisecond, c.first(0))
			s.advance(200 * time.Millisecond)
			q := s.e.Question()
			if q == nil {
				t.Fatalf("no question\n%s", s.timeline())
			}
			for n := 1; n <= 5; n++ {
				s.out(2*time.Second, c.again(n))
				s.advance(200 * time.Millisecond)
				if _, hash := s.e.Shown(); hash != q.ScreenHash {
					t.Fatalf("the screen's hash %s at a question of %s", hash, q.ScreenHash)
				}
			}
			if opened := s.questions(engine.EventQuestion); len(opened) != 1 {
				t.Fatalf("%d questions for one prompt\n%s", len(opened), s.timeline())
			}
			s.out(2*time.Second, c.change)
			s.advance(200 * time.Millisecond)
			if opened := s.questions(engine.EventQuestion); len(opened) != 2 {
				t.Fatalf("%d questions after the prompt changed, want 2\n%s", len(opened), s.timeline())
			}
			_, err := s.answer(ask.Answer{Question: s.e.Question().ID, ScreenHash: q.ScreenHash, Choose: "y"})
			wantRefused(t, err, ask.RefusedStale)
		})
	}
}

// A dialog a rule answered, drawn again whole (the screen cleared and every
// row written anew) with the option taken marked, is the question answered,
// not a new one, while the program moves on.
func TestAnsweredDialogRepaintedWholeIsNoQuestion(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`settings: {match: screen, settle: 200ms}
timeouts: {prompt: 1h}
rules:
  - name: trust
    match: "Do you trust this folder?"
    keys: [enter]
`, engine.Config{Rows: 12, Cols: 60, Remote: true})
	dialog := func(mark string) string {
		return "\x1b[2J\x1b[H Accessing workspace:\r\n\r\n Do you trust this folder?\r\n\r\n ❯ 1. Yes, I trust it" + mark + "\r\n   2. No, exit\r\n\r\n Enter to confirm · Esc to cancel"
	}
	s.out(time.Millisecond, dialog(""))
	s.advance(300 * time.Millisecond)
	s.wantSent("\r")
	s.out(100*time.Millisecond, dialog(" ✔"))
	s.advance(900 * time.Millisecond)
	if opened := s.questions(engine.EventQuestion); len(opened) != 0 {
		t.Fatalf("%d questions for a dialog answered and drawn again\n%s", len(opened), s.timeline())
	}
}
