package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// answer makes a person's answer in the sim at its time; it returns what the
// engine said.
func (s *sim) answer(a ask.Answer) (ask.Sent, error) {
	actions, sent, err := s.e.Answer(s.now, a)
	s.apply(actions)
	return sent, err
}

// wantRefused fails unless err is a refusal with the code.
func wantRefused(t *testing.T, err error, code string) {
	t.Helper()
	var r *ask.Refusal
	if !errors.As(err, &r) || r.Code != code {
		t.Fatalf("error %v, want a refusal %q", err, code)
	}
}

// questions returns the questions of the events of a kind, in order.
func (s *sim) questions(kind engine.EventKind) []ask.Question {
	var qs []ask.Question
	for _, e := range s.events {
		if e.Name == kind {
			qs = append(qs, *e.Question)
		}
	}
	return qs
}

func text(s string) *string { return &s }

// A prompt nothing answers opens a question with its line, its choices and
// the screen's hash; an answer to it is typed, closes it as answered, and a
// second answer to it is refused as closed and typed never.
func TestQuestionAtPromptIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{})
	s.out(time.Millisecond, "Working...\r\nOverwrite config.yaml? [y/N] ")
	s.advance(200 * time.Millisecond)
	s.wantState(engine.Prompting)
	q := s.e.Question()
	if q == nil {
		t.Fatalf("no question at a prompt\n%s", s.timeline())
	}
	if q.ID != "q1" || q.Reason != ask.Prompt || q.Text != "Overwrite config.yaml? [y/N]" || q.ScreenHash == "" ||
		len(q.Options) != 2 || q.Options[0].Label != "y" || q.Options[1].Label != "N" || !strings.Contains(q.Screen, "Working...") {
		t.Fatalf("question %+v", q)
	}
	sent, err := s.answer(ask.Answer{Question: "q1", Choose: "y", By: "alice", Channel: ask.ChannelCLI})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Question != "q1" || sent.Sent != `choose "y"` {
		t.Fatalf("sent %+v", sent)
	}
	s.wantSent("y\r")
	s.wantState(engine.Running)
	_, err = s.answer(ask.Answer{Question: "q1", Text: text("n"), By: "bob", Channel: ask.ChannelDashboard})
	wantRefused(t, err, ask.RefusedClosed)
	s.wantSent("y\r")
	closed := s.questions(engine.EventAnswer)
	if len(closed) != 1 || closed[0].Closed.How != ask.Answered || closed[0].Closed.By != "alice" || closed[0].Closed.Channel != ask.ChannelCLI {
		t.Fatalf("answered %+v", closed)
	}
}

// An answer for a screen that is no longer shown is refused as stale: the
// program redrew (here it asks again) since it was given.
func TestStaleAnswerIsRefused(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: "+mode+", settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{Rows: 10, Cols: 60, Remote: true})
			s.out(time.Millisecond, "Name: ")
			s.advance(200 * time.Millisecond)
			q := s.e.Question()
			if q == nil {
				t.Fatalf("no question\n%s", s.timeline())
			}
			s.out(time.Millisecond, "\r\nName (again): ")
			s.advance(200 * time.Millisecond)
			_, err := s.answer(ask.Answer{Question: s.e.Question().ID, ScreenHash: q.ScreenHash, Text: text("bob")})
			wantRefused(t, err, ask.RefusedStale)
			s.wantSent()
			// The first question moved on, the second is open.
			if moved := s.questions(engine.EventClosed); len(moved) != 1 || moved[0].Closed.How != ask.MovedOn {
				t.Fatalf("closed %+v\n%s", moved, s.timeline())
			}
			if _, err := s.answer(ask.Answer{Question: s.e.Question().ID, Text: text("bob")}); err != nil {
				t.Fatal(err)
			}
			s.wantSent("bob\r")
		})
	}
}

// Answers that do not fit are refused with their reason: none open, an
// unknown question, not exactly one of text, choose and keys, an unknown key
// or option, a line with a control character; and after the end.
func TestBadAnswersAreRefused(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{})
	_, err := s.answer(ask.Answer{Text: text("x")})
	wantRefused(t, err, ask.RefusedNoQuestion)
	s.out(time.Millisecond, "Continue? (yes/no) ")
	s.advance(200 * time.Millisecond)
	for _, c := range []struct {
		a    ask.Answer
		code string
	}{
		{ask.Answer{Question: "q7", Text: text("x")}, ask.RefusedNoQuestion},
		{ask.Answer{Question: "q1"}, ask.RefusedBadAnswer},
		{ask.Answer{Question: "q1", Text: text("x"), Choose: "yes"}, ask.RefusedBadAnswer},
		{ask.Answer{Question: "q1", Keys: []string{"enter", "hyperdrive"}}, ask.RefusedBadAnswer},
		{ask.Answer{Question: "q1", Choose: "maybe"}, ask.RefusedBadAnswer},
		{ask.Answer{Question: "q1", Text: text("yes\rrm -rf /")}, ask.RefusedBadAnswer},
	} {
		_, err := s.answer(c.a)
		wantRefused(t, err, c.code)
	}
	s.wantSent()
	if _, err := s.answer(ask.Answer{Question: "q1", Choose: "YES", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("yes\r")
	s.exit(time.Millisecond, 0)
	_, err = s.answer(ask.Answer{Question: "q1", Text: text("x")})
	wantRefused(t, err, ask.RefusedEnded)
	refused := 0
	for _, e := range s.events {
		if e.Name == engine.EventRefused {
			refused++
		}
	}
	if refused != 8 {
		t.Fatalf("%d refused events, want 8\n%s", refused, s.timeline())
	}
}

// A person's text answer holding what a terminal does not show as itself (a
// C1 control such as CSI or NEL, a bidi override, a zero-width character) is
// refused with the reason naming the character, and nothing is typed; the
// same text without it is typed.
func TestHiddenCharactersInAPersonsTextAreRefused(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{})
	s.out(time.Millisecond, "Project name: ")
	s.advance(200 * time.Millisecond)
	for _, c := range []struct{ text, code string }{
		{"demo\u009b2J", "U+009B"}, {"demo\u0085rm", "U+0085"}, {"\u202eomed", "U+202E"}, {"de\u200bmo", "U+200B"}, {"de\tmo", "U+0009"},
	} {
		_, err := s.answer(ask.Answer{Question: "q1", Text: text(c.text), By: "alice", Channel: ask.ChannelCLI})
		wantRefused(t, err, ask.RefusedBadAnswer)
		if !strings.Contains(err.Error(), c.code) || !strings.Contains(err.Error(), "send keys") {
			t.Errorf("refusal of %q: %v, want it to name %s and keys", c.text, err, c.code)
		}
	}
	s.wantSent()
	if _, err := s.answer(ask.Answer{Question: "q1", Text: text("démo ☕"), Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("démo ☕\r")
}

// Headless, a danger hand-over ends the run at once; with a person who may
// answer from elsewhere it opens a question once the output settles. The
// answer is typed as the person's decision, logged as such, and the run stays
// in MANUAL: the next question opens once the program has shown more, and
// the run ends after timeouts.prompt without an answer.
func TestDangerHandOverWaitsForRemoteAnswer(t *testing.T) {
	t.Parallel()
	pb := header + `settings: {settle: 100ms}
timeouts: {prompt: 10s}
danger:
  - {name: wipe, match: "rm -rf", action: manual}
rules:
  - {name: yes, match: "[y/N]", line: "y"}
`
	s := newSim(t, pb, engine.Config{})
	s.out(time.Millisecond, "about to run rm -rf /tmp/x\r\nProceed? [y/N] ")
	s.wantResult(engine.Manual, exitcode.Manual)

	s = newSim(t, pb, engine.Config{Remote: true})
	s.out(time.Millisecond, "about to run rm -rf /tmp/x\r\n")
	s.out(50*time.Millisecond, "Proceed? [y/N] ")
	s.wantState(engine.Manual)
	if s.e.Question() != nil {
		t.Fatalf("a question before the output settled\n%s", s.timeline())
	}
	s.advance(200 * time.Millisecond)
	q := s.e.Question()
	if q == nil || q.Reason != ask.Danger || !strings.Contains(q.Detail, `danger rule "wipe"`) || q.Text != "Proceed? [y/N]" {
		t.Fatalf("question %+v\n%s", q, s.timeline())
	}
	if _, err := s.answer(ask.Answer{Question: q.ID, Choose: "N", By: "alice", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("N\r")
	s.wantState(engine.Manual)
	var decision string
	for _, e := range s.events {
		if e.Name == engine.EventAnswer {
			decision = e.Reason
		}
	}
	if !strings.Contains(decision, "a person's decision (alice through cli)") || !strings.Contains(decision, "wipe") {
		t.Fatalf("answer's reason %q", decision)
	}
	s.out(time.Millisecond, "N\r\nskipped.\r\nNext? [y/N] ")
	s.advance(200 * time.Millisecond)
	if q := s.e.Question(); q == nil || q.ID != "q2" || q.Text != "Next? [y/N]" {
		t.Fatalf("second question %+v\n%s", q, s.timeline())
	}
	s.wantSent("N\r")
	s.advance(11 * time.Second)
	s.wantResult(engine.Manual, exitcode.Manual)
	if ended := s.questions(engine.EventClosed); len(ended) != 1 || ended[0].ID != "q2" || ended[0].Closed.How != ask.Ended {
		t.Fatalf("closed %+v", ended)
	}
}

// At a menu the question offers its options; choosing one moves the marker
// there with the arrow keys and confirms, as a person would.
func TestChooseAnswerOnAMenu(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "Do you want to proceed?\r\n❯ 1. Yes\r\n  2. Yes, and don't ask again\r\n  3. No\r\n")
	s.advance(200 * time.Millisecond)
	q := s.e.Question()
	if q == nil || q.Text != "Do you want to proceed?" || len(q.Options) != 3 || q.Options[2].Label != "No" {
		t.Fatalf("question %+v\n%s", q, s.timeline())
	}
	if _, err := s.answer(ask.Answer{Question: q.ID, Choose: "No"}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("\x1b[B\x1b[B\r")
}

// The person at clai's terminal answers the open question by typing: it
// closes as answered through the terminal, and a later answer is refused.
func TestTerminalAnswersTheQuestion(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\n", engine.Config{Interactive: true, Person: "alice"})
	s.out(time.Millisecond, "Name: ")
	s.advance(200 * time.Millisecond)
	s.apply(s.e.Input(s.now, 4))
	answered := s.questions(engine.EventAnswer)
	if len(answered) != 1 || answered[0].Closed.Channel != ask.ChannelTerminal || answered[0].Closed.By != "alice" {
		t.Fatalf("answered %+v\n%s", answered, s.timeline())
	}
	_, err := s.answer(ask.Answer{Question: "q1", Text: text("bob")})
	wantRefused(t, err, ask.RefusedClosed)
}

// A person's answer waits for min_send_interval after clai's last answer, as
// a rule's would.
func TestAnswerWaitsForMinSendInterval(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms, min_send_interval: 2s}\ntimeouts: {prompt: 1m}\nrules:\n  - {name: a, match: \"Start?\", line: \"y\"}\n", engine.Config{})
	s.out(time.Millisecond, "Start? ")
	s.wantSent("y\r")
	s.out(time.Millisecond, "y\r\nName: ")
	s.advance(200 * time.Millisecond)
	if _, err := s.answer(ask.Answer{Question: "q1", Text: text("bob")}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("y\r")
	s.advance(time.Second)
	s.wantSent("y\r")
	s.advance(time.Second)
	s.wantSent("y\r", "bob\r")
}

// Each hand-over opens a question with its reason once the output settles:
// a rule over its limit, a choose that cannot find its option, Ctrl-C at the
// terminal, no output for timeouts.idle.
func TestHandOverReasons(t *testing.T) {
	t.Parallel()
	const settle = "settings: {settle: 100ms}\n"
	cases := []struct {
		name, body string
		cfg        engine.Config
		act        func(s *sim)
		want       ask.Reason
		detail     string
	}{
		{"limit", settle + "timeouts: {prompt: 1m}\nrules:\n  - {name: again, match: \"Again?\", line: \"y\", limit: 1}\n", engine.Config{Remote: true}, func(s *sim) {
			s.out(time.Millisecond, "Again? ")
			s.out(10*time.Millisecond, "y\r\nAgain? ")
		}, ask.Limit, `rule "again" reached its limit of 1`},
		{"choose", "settings: {match: screen, settle: 100ms}\ntimeouts: {prompt: 1m}\nrules:\n  - {name: pick, match: \"Pick one\", choose: \"Banana\"}\n", engine.Config{Remote: true, Rows: 10, Cols: 60}, func(s *sim) {
			s.out(time.Millisecond, "Pick one\r\n❯ 1. Apple\r\n  2. Cherry\r\n")
		}, ask.Choose, "no such option on screen"},
		{"interrupt", settle, engine.Config{Interactive: true}, func(s *sim) {
			s.out(time.Millisecond, "working\r\n")
			s.apply(s.e.Interrupt(s.now))
		}, ask.Interrupt, "Ctrl-C"},
		{"idle", settle + "timeouts: {idle: 2s, prompt: 1m}\n", engine.Config{Remote: true}, func(s *sim) {
			s.out(time.Millisecond, "working\r\n")
		}, ask.Idle, "no output for 2s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+c.body, c.cfg)
			c.act(s)
			s.advance(3 * time.Second)
			s.wantState(engine.Manual)
			q := s.e.Question()
			if q == nil || q.Reason != c.want || !strings.Contains(q.Detail, c.detail) {
				t.Fatalf("question %+v\n%s", q, s.timeline())
			}
		})
	}
}
