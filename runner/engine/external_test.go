package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/engine"
)

// digits types the option chosen by its number, and a text as a line after
// the number past the last option, each key a keystroke of its own; the text
// waits for a line with each of await, when set.
type digits struct {
	labels []string
	await  []string
}

func (d digits) Strokes(a ask.Answer) ([]engine.Stroke, string, *ask.Refusal) {
	if a.Text != nil {
		return []engine.Stroke{
			{Keystrokes: keys.Keystrokes{Data: []byte{byte('1' + len(d.labels))}}},
			{Keystrokes: keys.Keystrokes{Data: []byte(*a.Text)}, Await: d.await},
			{Keystrokes: keys.Keystrokes{Keys: []keys.Key{"enter"}}},
		}, "other " + *a.Text, nil
	}
	if i := slices.Index(d.labels, a.Choose); i >= 0 {
		return []engine.Stroke{{Keystrokes: keys.Keystrokes{Data: []byte{byte('1' + i)}}}}, "choose " + a.Choose, nil
	}
	return nil, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: "no option " + a.Choose}
}

// ask opens an External question in the sim at its time.
func (s *sim) ask(x engine.External) string {
	actions, id := s.e.Ask(s.now, x)
	s.apply(actions)
	return id
}

func colourQuestion() engine.External {
	return engine.External{
		Question: ask.Question{Reason: ask.Tool, Header: "Colour", Text: "Which colour?", Other: true,
			Options: []ask.Option{{Label: "Red", Description: "warm"}, {Label: "Blue", Description: "calm"}}},
		Typist: digits{labels: []string{"Red", "Blue"}},
		Gap:    150 * time.Millisecond,
	}
}

// A source's question is the run's open question until it is answered: the
// program's output neither closes it nor opens a question of the engine's
// own, even at a prompt. The answer's keystrokes are typed each on its own,
// gap apart, and a second answer is refused as closed.
func TestExternalQuestionIsTypedKeystrokeByKeystroke(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{Session: "s1"})
	s.out(time.Millisecond, "thinking\r\n")
	id := s.ask(colourQuestion())
	q := s.e.Question()
	if id != "q1" || q == nil || q.ID != id || q.Session != "s1" || q.Reason != ask.Tool || q.Header != "Colour" ||
		!q.Other || len(q.Options) != 2 || q.Options[1].Description != "calm" || q.ScreenHash == "" {
		t.Fatalf("id %q, question %+v", id, q)
	}
	s.out(time.Millisecond, "Which colour?\r\n 1. Red\r\n 2. Blue\r\nAnswer? [y/N] ")
	s.advance(time.Second)
	if q := s.e.Question(); q == nil || q.ID != id {
		t.Fatalf("the source's question did not stay open: %+v\n%s", q, s.timeline())
	}
	if len(s.questions(engine.EventQuestion)) != 1 {
		t.Fatalf("the engine opened a question of its own\n%s", s.timeline())
	}

	sent, err := s.answer(ask.Answer{Question: id, Text: text("Green"), By: "bob", Channel: ask.ChannelCLI})
	if err != nil || sent.Sent != "other Green" {
		t.Fatalf("answer: %+v, %v", sent, err)
	}
	s.wantSent("3")
	s.advance(100 * time.Millisecond)
	s.wantSent("3")
	s.advance(50 * time.Millisecond)
	s.wantSent("3", "Green")
	s.advance(150 * time.Millisecond)
	s.wantSent("3", "Green", "\r")
	s.advance(time.Second)
	s.wantSent("3", "Green", "\r")
	if closed := s.questions(engine.EventAnswer); len(closed) != 1 || closed[0].Closed.By != "bob" || closed[0].Closed.Sent != "other Green" {
		t.Fatalf("closed %+v", closed)
	}
	_, err = s.answer(ask.Answer{Question: id, Choose: "Red"})
	wantRefused(t, err, ask.RefusedClosed)
}

// A source's question closes when the source withdraws it or the run ends,
// never otherwise; an answer the typist refuses types nothing and leaves it
// open; a question the engine opened gives way to the source's.
func TestExternalQuestionClosesWhenWithdrawn(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{})
	s.out(time.Millisecond, "Overwrite? [y/N] ")
	s.advance(200 * time.Millisecond)
	if q := s.e.Question(); q == nil || q.Reason != ask.Prompt {
		t.Fatalf("no prompt question: %+v", q)
	}
	id := s.ask(colourQuestion())
	if moved := s.questions(engine.EventClosed); len(moved) != 1 || moved[0].ID != "q1" || moved[0].Closed.How != ask.MovedOn || id != "q2" {
		t.Fatalf("id %q, closed %+v", id, moved)
	}
	_, err := s.answer(ask.Answer{Question: id, Choose: "Purple"})
	wantRefused(t, err, ask.RefusedBadAnswer)
	_, err = s.answer(ask.Answer{Question: id, Choose: "Red", Keys: []string{"enter"}})
	wantRefused(t, err, ask.RefusedBadAnswer)
	s.wantSent()

	s.apply(s.e.Withdraw(s.now, "q1", ask.MovedOn)) // not the open one: nothing
	if q := s.e.Question(); q == nil || q.ID != id {
		t.Fatalf("open %+v", q)
	}
	s.apply(s.e.Withdraw(s.now, id, ask.MovedOn))
	if q := s.e.Question(); q != nil {
		t.Fatalf("still open: %+v", q)
	}
	_, err = s.answer(ask.Answer{Question: id, Choose: "Red"})
	wantRefused(t, err, ask.RefusedClosed)
	s.wantSent()

	id = s.ask(colourQuestion())
	s.exit(time.Millisecond, 0)
	if ended := s.questions(engine.EventClosed); len(ended) != 3 || ended[2].ID != id || ended[2].Closed.How != ask.Ended {
		t.Fatalf("closed %+v", ended)
	}
	if id := s.ask(colourQuestion()); id != "" {
		t.Fatalf("a question opened after the end: %q", id)
	}
}

// Keys answer a source's question key by key; several options are refused
// for a question of the engine's own.
func TestExternalKeysAndChoices(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {prompt: 1m}\n", engine.Config{})
	id := s.ask(colourQuestion())
	if _, err := s.answer(ask.Answer{Question: id, Keys: []string{"down", "enter"}}); err != nil {
		t.Fatal(err)
	}
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B", "\r")

	s.out(time.Millisecond, "Overwrite? [y/N] ")
	s.advance(200 * time.Millisecond)
	q := s.e.Question()
	if q == nil {
		t.Fatalf("no question\n%s", s.timeline())
	}
	_, err := s.answer(ask.Answer{Question: q.ID, Choices: []string{"y", "N"}})
	wantRefused(t, err, ask.RefusedBadAnswer)
}

// A source's open question waits for a person however long it takes: the
// silent program is not nudged (the nudge would be typed into its dialog) nor
// handed over; once the question is answered, silence counts again.
func TestExternalQuestionIsNotNudged(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms}\ntimeouts: {idle: 1s, prompt: 2h}\nnudge: {sequence: [\"continue\\r\"], gap: 1s, max: 1}\n", engine.Config{})
	s.out(time.Millisecond, "thinking\r\n")
	id := s.ask(colourQuestion())
	s.out(time.Millisecond, "Which colour?\r\n 1. Red\r\n 2. Blue\r\n")
	s.advance(time.Hour)
	s.wantSent()
	if q := s.e.Question(); q == nil || q.ID != id || len(s.questions(engine.EventQuestion)) != 1 {
		t.Fatalf("the source's question did not stay the only one: %+v\n%s", q, s.timeline())
	}
	if _, err := s.answer(ask.Answer{Question: id, Choose: "Blue", By: "bob", Channel: ask.ChannelDashboard}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("2")
	s.advance(900 * time.Millisecond)
	s.wantSent("2")
	s.advance(200 * time.Millisecond)
	s.wantSent("2", "continue\r")
}

// A keystroke that awaits a line waits until the screen shows it, looked at
// every 50 ms: a text typed before the program opened its text field would
// be lost.
func TestExternalStrokeWaitsForTheLineItAwaits(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms, match: screen}\ntimeouts: {prompt: 1m}\n", engine.Config{Session: "s1"})
	s.out(time.Millisecond, "Which colour?\r\n> 1. Red\r\n  2. Blue\r\n  3. Other\r\n")
	x := colourQuestion()
	x.Typist = digits{labels: []string{"Red", "Blue"}, await: []string{"> 3.", "Other"}}
	id := s.ask(x)
	if _, err := s.answer(ask.Answer{Question: id, Text: text("Green"), By: "bob", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("3")
	// The gap passes, and more: the program has not moved its pointer.
	s.advance(time.Second)
	s.wantSent("3")
	// It does; the text follows at the next look, Enter a gap later.
	s.out(10*time.Millisecond, "\x1b[2;1H  1. Red\r\n  2. Blue\r\n> 3. Other")
	s.advance(50 * time.Millisecond)
	s.wantSent("3", "Green")
	s.advance(150 * time.Millisecond)
	s.wantSent("3", "Green", "\r")
	if !strings.Contains(s.timeline(), `waits for a line with ["> 3." "Other"]`) {
		t.Errorf("no event tells of the wait:\n%s", s.timeline())
	}
}

// A line that never shows holds a keystroke back AwaitLimit at most: then
// neither it nor the rest of the answer is typed, and an event says so.
func TestExternalStrokeAwaitsAtMostTheLimit(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 100ms, match: screen}\ntimeouts: {prompt: 1m}\n", engine.Config{Session: "s1"})
	s.out(time.Millisecond, "Which colour?\r\n")
	x := colourQuestion()
	x.Typist = digits{labels: []string{"Red", "Blue"}, await: []string{"never shown"}}
	id := s.ask(x)
	if _, err := s.answer(ask.Answer{Question: id, Text: text("Green"), By: "bob", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	s.advance(150*time.Millisecond + engine.AwaitLimit + time.Second)
	s.wantSent("3")
	if !strings.Contains(s.timeline(), "the rest of the answer (2 keystrokes) is not typed") {
		t.Errorf("no event tells the answer was not typed:\n%s", s.timeline())
	}
	// An answer after it is typed as ever.
	s.out(time.Millisecond, "Next? [y/n] ")
	id = s.ask(colourQuestion())
	if _, err := s.answer(ask.Answer{Question: id, Choose: "Red", By: "bob", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	s.wantSent("3", "1")
}
