package channel_test

import (
	"bytes"
	"context"
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

// flakyTelegram is a fake Bot API whose sendMessage srv refuses (a 502
// from a proxy in front of it) while it is down for it.
func flakyTelegram(t *testing.T, srv *server) *channeltest.Telegram {
	t.Helper()
	fake := channeltest.NewTelegram(t, token)
	fake.Hook = func(method string, w http.ResponseWriter, r *http.Request) bool {
		if method != "sendMessage" {
			return false
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if srv.refuse(string(body)) {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html>502 Bad Gateway</html>")
			return true
		}
		return false
	}
	return fake
}

func startTelegramSleeping(t *testing.T, fake *channeltest.Telegram, desk *fakeDesk, log *zap.Logger, sleep func(context.Context, time.Duration) bool) *channel.Set {
	t.Helper()
	return startTelegramWith(t, channel.TelegramConfig{BaseURL: fake.URL(), Token: token, Chats: []int64{chat}, Log: log, Sleep: sleep}, desk, log)
}

// questions are the messages with buttons whose text holds text.
func questions(f *channeltest.Telegram, text string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range f.Messages() {
		if len(m.Buttons) > 0 && strings.Contains(m.Text, text) {
			out = append(out, m)
		}
	}
	return out
}

// TestTelegramQuestionSurvivesAFailingSend: the first sends of a question
// fail; it is sent again until it reaches the chat, once, and when it is
// answered its message is edited to say so, Enter shown as a person reads
// it.
func TestTelegramQuestionSurvivesAFailingSend(t *testing.T) {
	t.Parallel()
	srv := &server{}
	srv.set(func(string) bool { return srv.refused < 2 })
	fake := flakyTelegram(t, srv)
	desk := newFakeDesk()
	clock := &virtualClock{}
	log, obs := logs()
	set := startTelegramSleeping(t, fake, desk, log, clock.Sleep)
	q := question("q1", "h1", "Migrate now? [y/N]", "y", "N")
	desk.ask(q)
	m := asked(t, fake, 1)
	waitLogs(t, obs, channel.LogFailed, 2)
	desk.closeQuestion(q, ask.Answered, "alice", ask.ChannelDashboard, "y\r")
	fake.Wait(t, "the edit", func(f *channeltest.Telegram) bool { return len(f.Edits()) > 0 })
	desk.end()
	set.Close()
	fake.Snapshot(func(f *channeltest.Telegram) {
		if n := len(questions(f, "Migrate now?")); n != 1 {
			t.Errorf("the question was sent %d times, want once", n)
		}
		e := f.Edits()
		if len(e) != 1 || e[0].ID != m.ID || !strings.Contains(e[0].Text, "answered by alice via dashboard: y⏎") || strings.Contains(e[0].Text, "\r") {
			t.Errorf("the edits: %+v", e)
		}
	})
}

// TestTelegramNewerQuestionIsNotHeldBehindAnOlder: while the first
// question's send fails and waits to be tried again, the second is sent;
// once the Bot API takes the first, it is sent too, once.
func TestTelegramNewerQuestionIsNotHeldBehindAnOlder(t *testing.T) {
	t.Parallel()
	srv := &server{}
	srv.set(func(body string) bool { return strings.Contains(body, "Continue?") })
	fake := flakyTelegram(t, srv)
	desk := newFakeDesk()
	g := newGate()
	startTelegramSleeping(t, fake, desk, zap.NewNop(), g.Sleep)
	desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
	g.waiting(t)
	desk.ask(question("q2", "h2", "Overwrite config.yaml? [y/N]", "y", "N"))
	fake.Wait(t, "the second question", func(f *channeltest.Telegram) bool { return len(questions(f, "Overwrite config.yaml?")) > 0 })
	srv.set(nil)
	close(g.open)
	fake.Wait(t, "the first question", func(f *channeltest.Telegram) bool { return len(questions(f, "Continue?")) > 0 })
	fake.Snapshot(func(f *channeltest.Telegram) {
		if n := len(questions(f, "Continue?")); n != 1 {
			t.Errorf("the first question was sent %d times, want once", n)
		}
	})
}

// TestTelegramQuestionClosedBeforeItWasSentIsNotSent: a question that
// closes while its send fails is withdrawn: not sent once the Bot API takes
// messages again, and nothing is edited.
func TestTelegramQuestionClosedBeforeItWasSentIsNotSent(t *testing.T) {
	t.Parallel()
	srv := &server{}
	srv.set(func(string) bool { return true })
	fake := flakyTelegram(t, srv)
	desk := newFakeDesk()
	g := newGate()
	log, obs := logs()
	set := startTelegramSleeping(t, fake, desk, log, g.Sleep)
	q1 := question("q1", "h1", "Continue? [y/n]", "y", "n")
	desk.ask(q1)
	g.waiting(t)
	desk.closeQuestion(q1, ask.MovedOn, "", "", "")
	waitLogs(t, obs, channel.LogWithdrawn, 1)
	srv.set(nil)
	close(g.open)
	desk.ask(question("q2", "h2", "Overwrite config.yaml? [y/N]", "y", "N"))
	asked(t, fake, 1)
	desk.end()
	set.Close()
	fake.Snapshot(func(f *channeltest.Telegram) {
		for _, m := range append(f.Messages(), f.Edits()...) {
			if strings.Contains(m.Text, "Continue?") {
				t.Errorf("the withdrawn question reached the chat: %+v", m)
			}
		}
	})
}

// TestTelegramHelpAndPlainMessages: /help, a plain message and an unknown
// command are answered with the commands; /view without a session, or
// naming another, says how to write it; a text answer's confirmation
// shows Enter as a person reads it.
func TestTelegramHelpAndPlainMessages(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	startTelegram(t, fake, desk, zap.NewNop())
	desk.ask(question("q1", "h1", "Release name:"))
	fake.Wait(t, "the question", func(f *channeltest.Telegram) bool { return len(f.Messages()) >= 1 })
	for _, text := range []string{"/help", "hello?", "/start", "/view", "/view other\u202e", "/answer installer v1.2.3"} {
		fake.Send(chat, alice, text)
	}
	fake.Wait(t, "six replies", func(f *channeltest.Telegram) bool { return len(f.Messages()) >= 7 })
	fake.Snapshot(func(f *channeltest.Telegram) {
		msgs := f.Messages()[1:]
		for i := range 3 {
			if text := msgs[i].Text; !strings.Contains(text, "/status") || !strings.Contains(text, "/answer 7f3c2a1e TEXT") ||
				!strings.Contains(text, "/view 7f3c2a1e") || !strings.Contains(text, "/help") {
				t.Errorf("reply %d, want the help: %q", i, text)
			}
		}
		if text := msgs[3].Text; !strings.Contains(text, "/view needs the session: write /view 7f3c2a1e") {
			t.Errorf("/view: %q", text)
		}
		if text := msgs[4].Text; !strings.Contains(text, `no session "other\u202E" here`) || strings.Contains(text, "\u202e") {
			t.Errorf("/view other: %q", text)
		}
		if text := msgs[5].Text; text != "sent: v1.2.3⏎" {
			t.Errorf("/answer: %q", text)
		}
	})
}

// TestTelegramOverlongMessageIsLogged: a message longer than MaxText is
// dropped, and the log says how long it was and who sent it, never what it
// said; an over-long button's data is refused and logged with its size.
func TestTelegramOverlongMessageIsLogged(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	desk := newFakeDesk()
	log, obs := logs()
	startTelegram(t, fake, desk, log)
	fake.Send(chat, alice, "/answer installer "+strings.Repeat("secret ", 1000))
	fake.Press(chat, alice, 1, strings.Repeat("x", channel.MaxButtonData+1))
	waitLogs(t, obs, channel.LogIgnored, 1)
	waitLogs(t, obs, channel.LogRefused, 1)
	e := obs.FilterMessage(channel.LogIgnored).All()[0].ContextMap()
	if e["bytes"] != int64(len("/answer installer ")+7000) || e["chat"] != chat || e["user"] != alice || strings.Contains(allLogs(obs), "secret") {
		t.Errorf("the log:\n%s", allLogs(obs))
	}
	if r := obs.FilterMessage(channel.LogRefused).All()[0].ContextMap()["reason"]; !strings.Contains(r.(string), "65 bytes, more than 64") {
		t.Errorf("the refused press: %v", r)
	}
	if taken := desk.taken(); len(taken) != 0 {
		t.Errorf("typed %+v", taken)
	}
}

// TestTelegramRefusalIsNotTriedAgain: a call the Bot API refuses for good
// (400: the press's query is too old to answer) is given up at once, not
// tried again; one that fails (a 502) is.
func TestTelegramRefusalIsNotTriedAgain(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewTelegram(t, token)
	fake.Hook = func(method string, w http.ResponseWriter, r *http.Request) bool {
		if method != "answerCallbackQuery" {
			return false
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"ok":false,"error_code":400,"description":"Bad Request: query is too old and response timeout expired or query ID is invalid"}`)
		return true
	}
	desk := newFakeDesk()
	log, obs := logs()
	clock := &virtualClock{}
	startTelegramSleeping(t, fake, desk, log, clock.Sleep)
	fake.Press(chat, alice, 1, "c1|7f3c2a1e|q1|h1|0")
	waitLogs(t, obs, channel.LogFailed, 1)
	e := obs.FilterMessage(channel.LogFailed).All()[0].ContextMap()
	if e["given_up"] != true || e["attempt"] != int64(1) {
		t.Errorf("the failure: %v", e)
	}
	fake.Snapshot(func(f *channeltest.Telegram) {
		if n := f.Calls("answerCallbackQuery"); n != 1 {
			t.Errorf("answerCallbackQuery called %d times, want once", n)
		}
	})
}
