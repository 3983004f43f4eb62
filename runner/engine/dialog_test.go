package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// A question tool's dialog as Claude Code draws it, and the screens around
// it, each drawn from a cleared screen.
const (
	dialogPlaybook = header + "settings: {match: screen, settle: 400ms}\ntimeouts: {prompt: 1h}\n"
	colourDialog   = "\x1b[2J\x1b[H● I have a question.\r\n\r\n ☐ Colour\r\n\r\nWhich colour?\r\n\r\n" +
		"❯ 1. Red\r\n     warm\r\n  2. Blue\r\n     calm\r\n  3. Type something.\r\n\r\n" +
		"Enter to select · ↑/↓ to navigate · Esc to cancel"
	colourPicked = "\x1b[2J\x1b[H● I have a question.\r\n\r\n ☒ Colour\r\n\r\nWhich colour?\r\n\r\n" +
		"  1. Red\r\n     warm\r\n❯ 2. Blue\r\n     calm\r\n  3. Type something.\r\n\r\n" +
		"Enter to select · ↑/↓ to navigate · Esc to cancel"
	afterDialog = "\x1b[2J\x1b[H● User answered Claude's questions:\r\n  ⎿  · Which colour? → Blue\r\n\r\n" +
		" Bash command\r\n\r\n   npm install left-pad\r\n\r\n Do you want to proceed?\r\n" +
		" ❯ 1. Yes\r\n   2. No\r\n\r\n Esc to cancel"
)

// claim claims the dialog id for the source in the sim, at its time.
func (s *sim) claim(id string, marks ...string) {
	s.apply(s.e.ClaimDialog(s.now, id, marks))
}

// wantQuestions fails unless the questions opened so far have the reasons.
func (s *sim) wantQuestions(want ...ask.Reason) {
	s.t.Helper()
	var got []string
	for _, q := range s.questions(engine.EventQuestion) {
		got = append(got, string(q.Reason))
	}
	if strings.Join(got, " ") != strings.Join(reasons(want), " ") {
		s.t.Fatalf("questions opened for %q, want %q\nevents:\n%s", got, want, s.timeline())
	}
}

func reasons(rs []ask.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// After a source's question is answered, the program's dialog stays on the
// screen a while, redrawn with the choice, before the program goes on: the
// prompt detector opens no question of its own for it meanwhile, and the
// prompt the program shows next is asked as always, before and after the
// source releases the dialog.
func TestClaimedDialogIsNotAskedAgainAfterTheToolsAnswer(t *testing.T) {
	t.Parallel()
	s := newSim(t, dialogPlaybook, engine.Config{})
	s.claim("toolu_1", "Which colour?")
	s.out(time.Millisecond, colourDialog)
	id := s.ask(colourQuestion())
	if _, err := s.answer(ask.Answer{Question: id, Choose: "Blue", By: "bob", Channel: ask.ChannelDashboard}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("2")
	s.out(50*time.Millisecond, colourPicked)
	s.advance(5 * time.Second)
	s.wantQuestions(ask.Tool)
	s.wantSent("2")

	s.out(time.Millisecond, afterDialog)
	s.advance(time.Second)
	s.wantQuestions(ask.Tool, ask.Prompt)
	if q := s.e.Question(); q == nil || len(q.Options) != 2 || q.Options[0].Label != "Yes" {
		t.Fatalf("the next prompt's question: %+v\n%s", q, s.timeline())
	}
	s.apply(s.e.ReleaseDialog(s.now, "toolu_1"))
	if q := s.e.Question(); q == nil || q.Reason != ask.Prompt {
		t.Fatalf("the release closed the next prompt's question: %+v", q)
	}
}

// The screen can settle on the dialog before the source reads the call: the
// prompt question the detector opened then closes as moved on when the
// source claims the dialog, and a late answer to it types nothing; the
// dialog redrawn before the source's own question opens is not asked about
// again.
func TestClaimedDialogWithdrawsThePromptQuestionOpenedBeforeIt(t *testing.T) {
	t.Parallel()
	s := newSim(t, dialogPlaybook, engine.Config{})
	s.out(time.Millisecond, colourDialog)
	s.advance(time.Second)
	s.wantQuestions(ask.Prompt)
	early := s.e.Question()

	s.claim("toolu_1", "Which colour?")
	if q := s.e.Question(); q != nil {
		t.Fatalf("the prompt question stayed open: %+v", q)
	}
	if closed := s.questions(engine.EventClosed); len(closed) != 1 || closed[0].ID != early.ID || closed[0].Closed.How != ask.MovedOn {
		t.Fatalf("closed %+v", closed)
	}
	_, err := s.answer(ask.Answer{Question: early.ID, Choose: "Blue", ScreenHash: early.ScreenHash})
	wantRefused(t, err, ask.RefusedClosed)
	s.out(time.Millisecond, colourDialog)
	s.advance(time.Second)
	s.wantQuestions(ask.Prompt)
	s.wantSent()

	id := s.ask(colourQuestion())
	s.wantQuestions(ask.Prompt, ask.Tool)
	if _, err := s.answer(ask.Answer{Question: id, Choose: "Red"}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("1")
}

// A source that claims the dialog before the program draws it leaves the
// screen to its own question, however late that opens; a claim covers only
// the screens that show the dialog: another prompt, and the dialog after
// its release and a screen without it, are asked about as always.
func TestClaimedDialogCoversOnlyItsScreen(t *testing.T) {
	t.Parallel()
	s := newSim(t, dialogPlaybook, engine.Config{})
	s.claim("toolu_1", "Which colour?", " ")
	s.out(time.Millisecond, colourDialog)
	s.advance(2 * time.Second)
	s.wantQuestions()
	s.wantState(engine.Prompting)

	s.out(time.Millisecond, afterDialog)
	s.advance(time.Second)
	s.wantQuestions(ask.Prompt)

	s.apply(s.e.ReleaseDialog(s.now, "toolu_1"))
	s.out(time.Millisecond, colourDialog)
	s.advance(time.Second)
	s.wantQuestions(ask.Prompt, ask.Prompt)

	// Marks that are blank claim nothing.
	s.claim("toolu_2", "", "  ")
	s.out(time.Millisecond, colourPicked)
	s.advance(time.Second)
	s.wantQuestions(ask.Prompt, ask.Prompt, ask.Prompt)
}

// expectFooter is the line a source expects its program's dialogs to show.
const expectFooter = "Enter to select · ↑/↓ to navigate"

// The screen settles on the dialog before the source has read the call that
// it shows: the prompt question waits for the source, which claims the
// dialog and asks its own, and never opens; where no source claims it in
// time, it opens once the wait is over, and a screen that is not such a
// dialog is asked about at once.
func TestExpectedDialogWaitsForItsSource(t *testing.T) {
	t.Parallel()
	s := newSim(t, dialogPlaybook, engine.Config{})
	s.apply(s.e.ExpectDialogs(s.now, []string{expectFooter, ""}, 3*time.Second))
	s.out(time.Millisecond, colourDialog)
	s.advance(time.Second)
	s.wantState(engine.Prompting)
	s.wantQuestions()
	s.claim("toolu_1", "Which colour?")
	s.advance(time.Second)
	id := s.ask(colourQuestion())
	s.advance(5 * time.Second)
	s.wantQuestions(ask.Tool)
	if _, err := s.answer(ask.Answer{Question: id, Choose: "Blue"}); err != nil {
		t.Fatal(err)
	}
	s.out(50*time.Millisecond, colourPicked)
	s.advance(5 * time.Second)
	s.wantQuestions(ask.Tool)
	s.apply(s.e.ReleaseDialog(s.now, "toolu_1"))

	s.out(time.Millisecond, afterDialog)
	s.advance(time.Second)
	s.wantQuestions(ask.Tool, ask.Prompt)

	// A dialog no source claims: its prompt question opens after the wait.
	s.out(time.Millisecond, strings.ReplaceAll(colourDialog, "Which colour?", "Which size?"))
	s.advance(3 * time.Second)
	s.wantQuestions(ask.Tool, ask.Prompt)
	s.advance(400 * time.Millisecond)
	s.wantQuestions(ask.Tool, ask.Prompt, ask.Prompt)
	if q := s.e.Question(); q == nil || !strings.Contains(q.Screen, "Which size?") {
		t.Fatalf("the late question: %+v\n%s", q, s.timeline())
	}
}
