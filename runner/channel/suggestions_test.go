package channel_test

import (
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// TestTelegramSuggestionsAreTheFirstButtons: a question's suggestions are
// its first buttons, with their share of people's answers; a press on one
// types it: a line for a question that takes one, an option's label as
// choose.
func TestTelegramSuggestionsAreTheFirstButtons(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	startTelegram(t, fake, desk, zap.NewNop(), alice)

	q := question("q1", "h1", "Release name:")
	q.Suggestions = []ask.Suggestion{
		{Text: "spring", Confidence: 2.0 / 3, Count: 2, Source: "answers"},
		{Text: "make test", Source: "tasks"},
	}
	desk.ask(q)
	m := asked(t, fake, 1)
	if len(m.Buttons) != 2 || m.Buttons[0].Text != "spring (67%)" || m.Buttons[1].Text != "make test (tasks)" ||
		!strings.Contains(m.Text, "/answer 7f3c2a1e TEXT") {
		t.Fatalf("the question's message: %+v", m)
	}
	fake.Press(chat, alice, m.ID, m.Buttons[0].Data)
	fake.Wait(t, "the press answered", answersSeen(fake, 1))

	q = question("q2", "h2", "Overwrite? [y/N]", "y", "N")
	q.Suggestions = []ask.Suggestion{{Text: "N", Option: true, Confidence: 1, Count: 3, Source: "answers"}}
	desk.ask(q)
	m = asked(t, fake, 2)
	if got := fmt.Sprint(m.Buttons[0].Text, "|", m.Buttons[1].Text, "|", m.Buttons[2].Text); len(m.Buttons) != 3 || got != "N (100%)|y|N" {
		t.Fatalf("the second question's buttons: %+v", m.Buttons)
	}
	fake.Press(chat, alice, m.ID, m.Buttons[0].Data)
	fake.Wait(t, "the press answered", answersSeen(fake, 2))

	taken := desk.taken()
	if len(taken) != 2 || taken[0].Text == nil || *taken[0].Text != "spring" || taken[1].Choose != "N" || taken[1].Channel != ask.ChannelTelegram {
		t.Fatalf("the desk took %+v", taken)
	}
}

// TestNtfySuggestionsAreTheFirstActions: the suggestions take the first of
// ntfy's actions, and the options left out are said how to answer.
func TestNtfySuggestionsAreTheFirstActions(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewNtfy(t, "")
	desk := newFakeDesk()
	startNtfy(t, fake, desk, zap.NewNop(), "")
	q := question("q1", "h1", "Pick one", "a", "b", "c")
	q.Suggestions = []ask.Suggestion{{Text: "c", Option: true, Confidence: 0.5, Count: 4, Source: "answers"}}
	desk.ask(q)
	m := published(t, fake, "the question", func(m channeltest.NtfyMessage) bool { return len(m.Actions) > 0 })
	if len(m.Actions) != 3 || m.Actions[0].Label != "c (50%)" || m.Actions[1].Label != "a" || m.Actions[2].Label != "b" ||
		!strings.Contains(m.Message, "clai answer --question q1 7f3c2a1e TEXT") {
		t.Fatalf("the question published: %+v", m)
	}
	fake.Press(t, m.Actions[0])
	if taken := desk.waitTaken(t, 1); taken[0].Choose != "c" || taken[0].Channel != ask.ChannelNtfy {
		t.Fatalf("the desk took %+v", taken)
	}
}

func TestParseButtonOfASuggestion(t *testing.T) {
	t.Parallel()
	b := channel.Button{Session: "s", Question: "q1", ScreenHash: "h", Option: 2, Suggestion: true}
	if got, err := channel.ParseButton(b.Encode()); err != nil || got != b {
		t.Fatalf("ParseButton(%q) = %+v, %v", b.Encode(), got, err)
	}
	for _, bad := range []string{"c1|s|q1|h|s", "c1|s|q1|h|s-1", "c1|s|q1|h|s01", "c1|s|q1|h|ss1", "c1|s|q1|h|s100"} {
		if _, err := channel.ParseButton(bad); err == nil {
			t.Errorf("ParseButton(%q) took it", bad)
		}
	}
}
