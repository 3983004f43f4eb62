package channel_test

import (
	"context"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// slowDesk is a fakeDesk whose answers wait until release closes: a run
// slow to type, or not replying.
type slowDesk struct {
	*fakeDesk
	release chan struct{}
}

func (d *slowDesk) Answer(ctx context.Context, a ask.Answer) (ask.Sent, error) {
	select {
	case <-d.release:
	case <-ctx.Done():
		return ask.Sent{}, ctx.Err()
	}
	return d.fakeDesk.Answer(ctx, a)
}

// TestOneBotServesManySessions: one bot serves two sessions (as the hub's
// does); each question is asked once with its own buttons, and a press of
// one session's button answers that session. One session slow to type
// holds up no press of the other: the other's option is typed while the
// first still waits, and the popups keep the order of the presses.
func TestOneBotServesManySessions(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	log, _ := logs()
	tg, err := channel.NewTelegram(channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	slow := &slowDesk{fakeDesk: newFakeDesk(), release: make(chan struct{})}
	quick := newFakeDesk()
	quick.session.ID, quick.session.Name = "9a8b7c6d", "deploy"
	ctx, cancel := context.WithCancel(context.Background())
	joins := make(chan ask.Desk, 2)
	done := make(chan error, 1)
	go func() { done <- tg.ServeAll(ctx, joins) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	joins <- slow
	joins <- quick
	slow.ask(question("q1", "h1", "Overwrite? [y/N]", "y", "N"))
	q := question("q1", "h2", "Deploy where? [staging/prod]", "staging", "prod")
	q.Session = quick.session.ID
	quick.ask(q)
	asked(t, fake, 2)
	var slowMsg, quickMsg channeltest.Message
	fake.Snapshot(func(f *channeltest.Telegram) {
		for _, m := range f.Messages() {
			switch {
			case len(m.Buttons) > 0 && m.Buttons[0].Text == "y":
				slowMsg = m
			case len(m.Buttons) > 0:
				quickMsg = m
			}
		}
	})
	fake.Press(chat, alice, slowMsg.ID, slowMsg.Buttons[1].Data)
	fake.Press(chat, alice, quickMsg.ID, quickMsg.Buttons[1].Data)
	// The quick session's option is typed while the slow one waits.
	if got := quick.waitTaken(t, 1); got[0].Choose != "prod" {
		t.Fatalf("the quick session took %+v", got)
	}
	if n := len(slow.taken()); n != 0 {
		t.Fatalf("the slow session took %d answers before it was let go", n)
	}
	close(slow.release)
	if got := slow.waitTaken(t, 1); got[0].Choose != "N" {
		t.Fatalf("the slow session took %+v", got)
	}
	fake.Wait(t, "both popups", answersSeen(fake, 2))
	fake.Snapshot(func(f *channeltest.Telegram) {
		a := f.Answers()
		if a[0].Text != "sent: choose N" || a[1].Text != "sent: choose prod" {
			t.Errorf("the popups, in the order of the presses: %+v", a)
		}
	})
}
