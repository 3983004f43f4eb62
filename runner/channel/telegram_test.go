package channel_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

const (
	token = "123456:AAHtoken-secret_ABCDEF"
	chat  = int64(987654321)
	alice = int64(987654321)
	bob   = int64(555)
)

// startTelegram serves desk on the fake with a channel that obeys chat (and
// users, when given); the channel stops with the test.
func startTelegram(t *testing.T, fake *channeltest.Telegram, desk *fakeDesk, log *zap.Logger, users ...int64) *channel.Set {
	t.Helper()
	return startTelegramWith(t, channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}, Users: users, Log: log}, desk, log)
}

func startTelegramWith(t *testing.T, cfg channel.TelegramConfig, desk *fakeDesk, log *zap.Logger) *channel.Set {
	t.Helper()
	tg, err := channel.NewTelegram(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set := channel.NewSet([]channel.Channel{tg}, log, 50*time.Millisecond)
	set.Watch(desk)
	t.Cleanup(set.Close)
	return set
}

// asked waits for the message of a question, with its buttons.
func asked(t *testing.T, fake *channeltest.Telegram, n int) channeltest.Message {
	t.Helper()
	var m channeltest.Message
	fake.Wait(t, fmt.Sprintf("question message %d", n), func(f *channeltest.Telegram) bool {
		count := 0
		for _, msg := range f.Messages() {
			if len(msg.Buttons) > 0 {
				count++
				m = msg
			}
		}
		return count >= n
	})
	return m
}

func answersSeen(fake *channeltest.Telegram, n int) func(*channeltest.Telegram) bool {
	return func(f *channeltest.Telegram) bool { return len(f.Answers()) >= n }
}

// TestTelegramPressAnswersOnlyForItsQuestion: a press from a chat or user
// that is not allow-listed is ignored and logged, and not even answered; a
// forged button, a button of another question, of a changed screen, or one
// pressed again are told "this question has moved on" and type nothing; the
// one good press types its option, once.
func TestTelegramPressAnswersOnlyForItsQuestion(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	log, obs := logs()
	startTelegram(t, fake, desk, log, alice)

	desk.ask(question("q1", "h1", "Overwrite config.yaml? [y/N]", "y", "N"))
	m := asked(t, fake, 1)
	if m.Chat != chat || len(m.Buttons) != 2 || m.Buttons[0].Text != "y" || m.Buttons[1].Text != "N" ||
		!strings.Contains(m.Text, "Overwrite config.yaml? [y/N]") {
		t.Fatalf("the question's message: %+v", m)
	}
	yes, no := m.Buttons[0].Data, m.Buttons[1].Data
	fake.Press(chat+1, alice, m.ID, yes)                               // another chat
	fake.Press(chat, bob, m.ID, yes)                                   // a user not allowed
	fake.Press(chat, alice, m.ID, strings.Replace(yes, "q1", "q9", 1)) // another question
	fake.Press(chat, alice, m.ID, strings.Replace(yes, "h1", "h2", 1)) // another screen
	fake.Press(chat, alice, m.ID, "c1|7f3c2a1e|q1|h1|7")               // no such option
	fake.Press(chat, alice, m.ID, "rm -rf /\r")                        // not clai's
	fake.Press(chat, alice, m.ID, no)
	fake.Press(chat, alice, m.ID, no) // a replay
	fake.Wait(t, "six answered presses", answersSeen(fake, 6))

	fake.Snapshot(func(f *channeltest.Telegram) {
		var got []string
		for _, a := range f.Answers() {
			got = append(got, a.Text)
		}
		want := []string{channel.MovedOn, channel.MovedOn, channel.MovedOn, channel.MovedOn, "sent: choose N", channel.MovedOn}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the presses were answered %q, want %q", got, want)
		}
	})
	taken := desk.taken()
	if len(taken) != 1 || taken[0].Choose != "N" || taken[0].Channel != ask.ChannelTelegram || taken[0].By != fmt.Sprintf("telegram:%d", alice) ||
		taken[0].ScreenHash != "h1" {
		t.Fatalf("the desk took %+v, want one choose N by telegram:%d", taken, alice)
	}
	if n := obs.FilterMessage(channel.LogIgnored).Len(); n != 2 {
		t.Errorf("%d ignored inputs logged, want 2:\n%s", n, allLogs(obs))
	}
}

// TestTelegramStaleScreenTypesNothing: a press for the question whose
// screen changed since it was asked is told it has moved on.
func TestTelegramStaleScreenTypesNothing(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	startTelegram(t, fake, desk, zap.NewNop())
	desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
	m := asked(t, fake, 1)
	desk.moveScreen("h2")
	fake.Press(chat, alice, m.ID, m.Buttons[0].Data)
	fake.Wait(t, "the press answered", answersSeen(fake, 1))
	fake.Snapshot(func(f *channeltest.Telegram) {
		if a := f.Answers()[0]; a.Text != channel.MovedOn {
			t.Errorf("the press was answered %q", a.Text)
		}
	})
	if taken := desk.taken(); len(taken) != 0 {
		t.Fatalf("typed %+v", taken)
	}
}

// TestTelegramClosedQuestionLosesItsButtons: the question's message is
// edited to say how it closed, and the run's end is said.
func TestTelegramClosedQuestionLosesItsButtons(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	set := startTelegram(t, fake, desk, zap.NewNop())
	q := question("q1", "h1", "Continue? [y/n]", "y", "n")
	desk.ask(q)
	m := asked(t, fake, 1)
	closed := *q
	closed.Closed = &ask.Closed{How: ask.Answered, By: "alice", Channel: ask.ChannelCLI, Sent: `choose "y"`}
	desk.watch <- ask.Update{Kind: ask.UpdateClosed, Question: &closed}
	desk.end()
	set.Close()
	fake.Snapshot(func(f *channeltest.Telegram) {
		edits := f.Edits()
		if len(edits) != 1 || edits[0].ID != m.ID || edits[0].Chat != chat || len(edits[0].Buttons) != 0 ||
			!strings.Contains(edits[0].Text, `answered by alice via cli: choose "y"`) {
			t.Errorf("the edits: %+v", edits)
		}
		msgs := f.Messages()
		if last := msgs[len(msgs)-1]; !strings.Contains(last.Text, "ended: done") {
			t.Errorf("the last message: %+v", last)
		}
	})
}

// TestTelegramCommands: /status lists the session and its question, /view
// shows the screen as monospace text (escaped), /answer types a text; a
// command naming another session is not obeyed.
func TestTelegramCommands(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	desk.screen = ask.Screen{Text: "password: ***\n<b>Name?</b> & more", Hash: "h1"}
	startTelegram(t, fake, desk, zap.NewNop())
	desk.ask(question("q1", "h1", "Name?"))
	fake.Wait(t, "the question", func(f *channeltest.Telegram) bool { return len(f.Messages()) >= 1 })

	fake.Send(chat, alice, "/status")
	fake.Send(chat, alice, "/view 7f3c2a1e")
	fake.Send(chat, alice, "/answer other-session demo")
	fake.Send(chat, alice, "/answer installer demo project")
	fake.Wait(t, "four replies", func(f *channeltest.Telegram) bool { return len(f.Messages()) >= 5 })
	fake.Snapshot(func(f *channeltest.Telegram) {
		msgs := f.Messages()[1:]
		if !strings.Contains(msgs[0].Text, "installer (session 7f3c2a1e): prompting") || !strings.Contains(msgs[0].Text, "open question q1: Name?") {
			t.Errorf("/status: %q", msgs[0].Text)
		}
		if msgs[1].ParseMode != "HTML" || msgs[1].Text != "<pre>password: ***\n&lt;b&gt;Name?&lt;/b&gt; &amp; more</pre>" {
			t.Errorf("/view: %+v", msgs[1])
		}
		if !strings.Contains(msgs[2].Text, "/answer 7f3c2a1e TEXT") {
			t.Errorf("/answer to another session: %q", msgs[2].Text)
		}
		if msgs[3].Text != "sent: demo project⏎" {
			t.Errorf("/answer: %q", msgs[3].Text)
		}
	})
	taken := desk.taken()
	if len(taken) != 1 || taken[0].Text == nil || *taken[0].Text != "demo project" || taken[0].Channel != ask.ChannelTelegram {
		t.Fatalf("the desk took %+v", taken)
	}
}

// TestTelegramInputRateIsBounded: of a flood of commands from an allowed
// chat, InputRate are obeyed in a minute; the rest are ignored and logged.
func TestTelegramInputRateIsBounded(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	log, obs := logs()
	startTelegram(t, fake, desk, log)
	for range channel.InputRate + 10 {
		fake.Send(chat, alice, "/status")
	}
	waitLogs(t, obs, channel.LogIgnored, 10)
	fake.Wait(t, "the replies", func(f *channeltest.Telegram) bool { return len(f.Messages()) >= channel.InputRate })
	fake.Snapshot(func(f *channeltest.Telegram) {
		if n := len(f.Messages()); n != channel.InputRate {
			t.Errorf("%d replies, want %d", n, channel.InputRate)
		}
	})
}

// TestTelegramHostilePeerNeverShowsTheToken: a peer that fails every call
// with the request's path (which holds the token) in its description, or
// answers with more than MaxResponse bytes, or is not there at all, is
// logged with the token masked.
func TestTelegramHostilePeerNeverShowsTheToken(t *testing.T) {
	t.Parallel()
	for name, hook := range map[string]func(string, http.ResponseWriter, *http.Request) bool{
		"echoes the path": func(_ string, w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"ok":false,"error_code":500,"description":"no route %s"}`, r.URL.Path)
			return true
		},
		"answers too much": func(_ string, w http.ResponseWriter, r *http.Request) bool {
			fmt.Fprintf(w, `{"ok":true,"result":"%s"}`, strings.Repeat("x", channel.MaxResponse+1))
			return true
		},
		"redirects": func(_ string, w http.ResponseWriter, r *http.Request) bool {
			http.Redirect(w, r, "http://127.0.0.1:1"+r.URL.Path, http.StatusFound)
			return true
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake := channeltest.NewTelegram(t, token)
			fake.Hook = hook
			desk := newFakeDesk()
			log, obs := logs()
			startTelegram(t, fake, desk, log)
			desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
			waitLogs(t, obs, channel.LogFailed, 2)
			if all := allLogs(obs); strings.Contains(all, "AAHtoken") || strings.Contains(all, "secret_ABCDEF") {
				t.Fatalf("the log holds the token:\n%s", all)
			}
		})
	}
	t.Run("is not there", func(t *testing.T) {
		t.Parallel()
		fake := channeltest.NewTelegram(t, token)
		fake.Server.Close()
		desk := newFakeDesk()
		log, obs := logs()
		startTelegram(t, fake, desk, log)
		desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
		waitLogs(t, obs, channel.LogFailed, 2)
		if all := allLogs(obs); strings.Contains(all, "AAHtoken") || !strings.Contains(all, "refused") {
			t.Fatalf("the log:\n%s", all)
		}
	})
}

// TestTelegramHangingPeerDoesNotHoldTheEnd: a peer that never answers any
// call holds the end of the run for the set's grace only.
func TestTelegramHangingPeerDoesNotHoldTheEnd(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	fake.Hook = func(_ string, _ http.ResponseWriter, r *http.Request) bool {
		_, _ = io.Copy(io.Discard, r.Body) // the server sees the client go only then
		<-r.Context().Done()
		return true
	}
	desk := newFakeDesk()
	// The calls' own timeout is out of reach: only the set's grace ends them.
	set := startTelegramWith(t, channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}, CallTimeout: time.Hour}, desk, zap.NewNop())
	desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
	fake.Wait(t, "a sendMessage", func(f *channeltest.Telegram) bool { return f.Calls("sendMessage") > 0 })
	desk.end()
	closed := make(chan struct{})
	go func() { set.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(60 * time.Second):
		t.Fatal("Close still waits for a hanging peer")
	}
}

// TestNewTelegramRefusesBadSettings: a token that would change the URL's
// path, a base URL that is not http, no chat.
func TestNewTelegramRefusesBadSettings(t *testing.T) {
	t.Parallel()
	for _, cfg := range []channel.TelegramConfig{
		{BaseURL: "https://api.telegram.org", Token: "1:a/../x", Chats: []int64{1}},
		{BaseURL: "file:///etc", Token: token, Chats: []int64{1}},
		{BaseURL: "https://api.telegram.org", Token: token},
	} {
		if _, err := channel.NewTelegram(cfg); err == nil || strings.Contains(err.Error(), "AAHtoken") {
			t.Errorf("%+v: err = %v", cfg.BaseURL, err)
		}
	}
}

// TestTelegramViewOfAWideScreenFits: /view of a screen of characters beyond
// the BMP (two UTF-16 units each, as Telegram counts them) and of characters
// HTML escapes is cut to what a message may hold, and sent.
func TestTelegramViewOfAWideScreenFits(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	desk.screen = ask.Screen{Text: strings.Repeat(strings.Repeat("😀&", 100)+"\n", 80)}
	startTelegram(t, fake, desk, zap.NewNop())
	fake.Send(chat, alice, "/view installer")
	fake.Send(chat, alice, "/status") // obeyed once /view's reply was sent, or refused
	fake.Wait(t, "the reply to /status", func(f *channeltest.Telegram) bool {
		msgs := f.Messages()
		return len(msgs) > 0 && strings.HasPrefix(msgs[len(msgs)-1].Text, "installer (session")
	})
	fake.Snapshot(func(f *channeltest.Telegram) {
		if m := f.Messages()[0]; !strings.HasPrefix(m.Text, "<pre>😀&amp;") || !strings.Contains(m.Text, "…") {
			t.Errorf("/view: %.80q", m.Text)
		}
	})
}
