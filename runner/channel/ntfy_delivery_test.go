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

// flakyNtfy is a fake ntfy server whose publishes srv refuses (503) while
// it is down for them; subscribing always works.
func flakyNtfy(t *testing.T, srv *server) *channeltest.Ntfy {
	t.Helper()
	fake := channeltest.NewNtfy(t, "")
	fake.Hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost {
			return false
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		if srv.refuse(string(body)) {
			http.Error(w, `{"code":50301,"http":503,"error":"server is down"}`, http.StatusServiceUnavailable)
			return true
		}
		return false
	}
	return fake
}

// startNtfySleeping serves desk on fake with sleep as the wait between
// attempts.
func startNtfySleeping(t *testing.T, fake *channeltest.Ntfy, desk *fakeDesk, log *zap.Logger, sleep func(ctx context.Context, d time.Duration) bool) *channel.Set {
	t.Helper()
	n, err := channel.NewNtfy(channel.NtfyConfig{Server: fake.URL(), Topic: "alice-questions", Log: log, Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	set := channel.NewSet([]channel.Channel{n}, log, 50*time.Millisecond)
	set.Watch(desk)
	t.Cleanup(set.Close)
	return set
}

// count is how many of msgs satisfy cond.
func count(msgs []channeltest.NtfyMessage, cond func(m channeltest.NtfyMessage) bool) int {
	n := 0
	for _, m := range msgs {
		if cond(m) {
			n++
		}
	}
	return n
}

func asks(text string) func(m channeltest.NtfyMessage) bool {
	return func(m channeltest.NtfyMessage) bool { return len(m.Actions) > 0 && strings.Contains(m.Message, text) }
}

// TestNtfyQuestionSurvivesAServerThatIsDownAtFirst: the first publishes
// are refused; the question is published once the server is up, once, and
// when it is answered a follow-up says by whom and what was typed, as a
// person reads it.
func TestNtfyQuestionSurvivesAServerThatIsDownAtFirst(t *testing.T) {
	t.Parallel()
	srv := &server{}
	srv.set(func(string) bool { return srv.refused < 3 })
	fake := flakyNtfy(t, srv)
	desk := newFakeDesk()
	clock := &virtualClock{}
	log, obs := logs()
	set := startNtfySleeping(t, fake, desk, log, clock.Sleep)
	q := question("q1", "h1", "Migrate now? [y/N]", "y", "N")
	desk.ask(q)
	published(t, fake, "the question", asks("Migrate now?"))
	if n := srv.refusals(); n != 3 {
		t.Errorf("%d publishes refused, want 3", n)
	}
	waitLogs(t, obs, channel.LogFailed, 3)

	desk.closeQuestion(q, ask.Answered, "alice", ask.ChannelDashboard, "y\r")
	m := published(t, fake, "the follow-up", func(m channeltest.NtfyMessage) bool { return strings.Contains(m.Title, "q1 closed") })
	if !strings.Contains(m.Message, "Migrate now? [y/N]") || !strings.Contains(m.Message, "answered by alice via dashboard: y⏎") ||
		strings.Contains(m.Message, "\r") || len(m.Actions) != 0 {
		t.Errorf("the follow-up: %+v", m)
	}
	desk.end()
	set.Close()
	fake.Wait(t, "the messages", func(msgs []channeltest.NtfyMessage) bool {
		if n := count(msgs, asks("Migrate now?")); n != 1 {
			t.Errorf("the question was published %d times, want once", n)
		}
		return true
	})
}

// TestNtfyNewerQuestionIsNotHeldBehindAnOlder: while the server refuses
// the first question and it waits to be tried again, the second is
// published; once the server takes the first, it is published too, once.
func TestNtfyNewerQuestionIsNotHeldBehindAnOlder(t *testing.T) {
	t.Parallel()
	srv := &server{}
	srv.set(func(body string) bool { return strings.Contains(body, "Continue?") })
	fake := flakyNtfy(t, srv)
	desk := newFakeDesk()
	g := newGate()
	startNtfySleeping(t, fake, desk, zap.NewNop(), g.Sleep)
	desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
	g.waiting(t)
	desk.ask(question("q2", "h2", "Overwrite config.yaml? [y/N]", "y", "N"))
	published(t, fake, "the second question", asks("Overwrite config.yaml?"))
	srv.set(nil)
	close(g.open)
	published(t, fake, "the first question", asks("Continue?"))
	fake.Wait(t, "the messages", func(msgs []channeltest.NtfyMessage) bool {
		if n := count(msgs, asks("Continue?")); n != 1 {
			t.Errorf("the first question was published %d times, want once: %+v", n, msgs)
		}
		return true
	})
}

// TestNtfyQuestionClosedBeforeItWasPublishedIsNotPublished: a question
// that closes while the server is down is withdrawn: not published once
// the server is up, and not followed up.
func TestNtfyQuestionClosedBeforeItWasPublishedIsNotPublished(t *testing.T) {
	t.Parallel()
	srv := &server{}
	srv.set(func(string) bool { return true })
	fake := flakyNtfy(t, srv)
	desk := newFakeDesk()
	g := newGate()
	log, obs := logs()
	startNtfySleeping(t, fake, desk, log, g.Sleep)
	q1 := question("q1", "h1", "Continue? [y/n]", "y", "n")
	desk.ask(q1)
	g.waiting(t)
	desk.closeQuestion(q1, ask.Answered, "alice", ask.ChannelCLI, "y\r")
	waitLogs(t, obs, channel.LogWithdrawn, 1)
	srv.set(nil)
	close(g.open)
	desk.ask(question("q2", "h2", "Overwrite config.yaml? [y/N]", "y", "N"))
	published(t, fake, "the second question", asks("Overwrite config.yaml?"))
	fake.Wait(t, "the messages", func(msgs []channeltest.NtfyMessage) bool {
		if n := count(msgs, func(m channeltest.NtfyMessage) bool { return strings.Contains(m.Message, "Continue?") }); n != 0 {
			t.Errorf("the withdrawn question reached the phone: %+v", msgs)
		}
		return true
	})
}

// TestNtfyOverlongReplyIsLogged: a message on the reply topic longer than
// MaxText is dropped, and the log says how long it was, never what it said.
func TestNtfyOverlongReplyIsLogged(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewNtfy(t, "")
	desk := newFakeDesk()
	log, obs := logs()
	n, _ := startNtfy(t, fake, desk, log, "")
	fake.Publish(n.ReplyTopic(), strings.Repeat("secret ", 1000))
	waitLogs(t, obs, channel.LogIgnored, 1)
	e := obs.FilterMessage(channel.LogIgnored).All()[0]
	if e.ContextMap()["bytes"] != int64(7000) || strings.Contains(allLogs(obs), "secret") {
		t.Errorf("the log:\n%s", allLogs(obs))
	}
}
