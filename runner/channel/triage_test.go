package channel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// fakeAnswerer decides each question as its test set beforehand: it takes
// the one it answers through the desk, as the answerer does, and leaves the
// others to people with a summary.
type fakeAnswerer struct {
	desk     *fakeDesk
	verdicts map[string]string // the summary of a question left to people; "" to take it
	took     chan string       // the questions taken
}

func (a *fakeAnswerer) decide(ctx context.Context, q ask.Question) (string, bool) {
	summary, ok := a.verdicts[q.ID]
	if !ok {
		<-ctx.Done()
		return "", false
	}
	if summary != "" {
		return summary, false
	}
	if _, err := a.desk.Answer(ctx, ask.Answer{Question: q.ID, Choose: q.Options[0].Label, By: "model", Channel: ask.ChannelAnswerer}); err != nil {
		return "", false
	}
	closed := q
	closed.Closed = &ask.Closed{How: ask.Answered, By: "model", Channel: ask.ChannelAnswerer, Sent: q.Options[0].Label}
	a.desk.watch <- ask.Update{Kind: ask.UpdateClosed, Question: &closed}
	a.took <- q.ID
	return "", true
}

// triaged returns a desk and the answerer that decides its questions before
// a phone is told: it takes q1 (Continue?) and leaves q2 (Overwrite?) to
// people. Its wait is out of reach, so only its decision lets a question
// through.
func triaged() (*fakeAnswerer, channel.SetOption) {
	ans := &fakeAnswerer{desk: newFakeDesk(), verdicts: map[string]string{"q1": "", "q2": "the installer wants to overwrite config.yaml"},
		took: make(chan string, 1)}
	return ans, channel.WithTriage(ans.decide, time.Hour)
}

// askBoth asks the question the answerer takes, and once it took it, the
// one it leaves. told says whether the phone was told of the first; a
// generous deadline only catches a hang.
func (a *fakeAnswerer) askBoth(t *testing.T, told func() bool) {
	t.Helper()
	a.desk.ask(question("q1", "h1", "Continue? [Y/n]", "Y", "n"))
	deadline := time.Now().Add(60 * time.Second)
	for taken := false; !taken; {
		select {
		case <-a.took:
			taken = true
		default:
			if told() {
				t.Fatal("the phone was told of q1 before the answerer decided it")
			}
			if time.Now().After(deadline) {
				t.Fatal("the answerer was never asked about q1")
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	a.desk.ask(question("q2", "h2", "Overwrite config.yaml? [y/N]", "y", "N"))
}

// TestTelegramTellsOnlyWhatTheAnswererLeaves: a question the answerer
// takes never reaches the chat; one it leaves to people does, once it said
// so, with its summary.
func TestTelegramTellsOnlyWhatTheAnswererLeaves(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	ans, triage := triaged()
	desk := ans.desk
	tg, err := channel.NewTelegram(channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}})
	if err != nil {
		t.Fatal(err)
	}
	set := channel.NewSet([]channel.Channel{tg}, zap.NewNop(), 50*time.Millisecond, triage)
	set.Watch(desk)
	t.Cleanup(set.Close)
	ans.askBoth(t, func() (told bool) {
		fake.Snapshot(func(f *channeltest.Telegram) { told = len(f.Messages()) > 0 })
		return told
	})
	m := asked(t, fake, 1)
	if !strings.Contains(m.Text, "Overwrite config.yaml?") || !strings.Contains(m.Text, "the installer wants to overwrite config.yaml") {
		t.Errorf("the message, want q2 with its summary: %q", m.Text)
	}
	desk.end()
	set.Close()
	fake.Snapshot(func(f *channeltest.Telegram) {
		for _, msg := range append(f.Messages(), f.Edits()...) {
			if strings.Contains(msg.Text, "Continue?") {
				t.Errorf("the question the answerer took reached the chat: %q", msg.Text)
			}
		}
	})
	if taken := desk.taken(); len(taken) != 1 || taken[0].Channel != ask.ChannelAnswerer {
		t.Errorf("the desk took %+v, want the answerer's answer only", taken)
	}
}

// TestNtfyTellsOnlyWhatTheAnswererLeaves: as for Telegram, through ntfy.
func TestNtfyTellsOnlyWhatTheAnswererLeaves(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewNtfy(t, "")
	ans, triage := triaged()
	desk := ans.desk
	n, err := channel.NewNtfy(channel.NtfyConfig{Server: fake.URL(), Topic: "alice-questions"})
	if err != nil {
		t.Fatal(err)
	}
	set := channel.NewSet([]channel.Channel{n}, zap.NewNop(), 50*time.Millisecond, triage)
	set.Watch(desk)
	t.Cleanup(set.Close)
	ans.askBoth(t, func() (told bool) {
		fake.Wait(t, "a look", func(msgs []channeltest.NtfyMessage) bool { told = len(msgs) > 0; return true })
		return told
	})
	m := published(t, fake, "the question left to people", func(m channeltest.NtfyMessage) bool { return len(m.Actions) > 0 })
	if !strings.Contains(m.Message, "Overwrite config.yaml?") || !strings.Contains(m.Message, "the installer wants to overwrite config.yaml") {
		t.Errorf("the message, want q2 with its summary: %q", m.Message)
	}
	desk.end()
	set.Close()
	fake.Wait(t, "the messages", func(msgs []channeltest.NtfyMessage) bool {
		for _, msg := range msgs {
			if strings.Contains(msg.Message, "Continue?") {
				t.Errorf("the question the answerer took reached the phone: %q", msg.Message)
			}
		}
		return true
	})
}
