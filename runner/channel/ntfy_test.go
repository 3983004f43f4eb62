package channel_test

import (
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

const ntfyToken = "tk_ntfysecrettoken0123456789"

func startNtfy(t *testing.T, fake *channeltest.Ntfy, desk *fakeDesk, log *zap.Logger, token string) (*channel.Ntfy, *channel.Set) {
	t.Helper()
	// The calls' own timeout is out of reach: only the set's grace ends a
	// hanging one.
	n, err := channel.NewNtfy(channel.NtfyConfig{Server: fake.URL(), Topic: "alice-questions", Token: token, Log: log, CallTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	set := channel.NewSet([]channel.Channel{n}, log, 50*time.Millisecond)
	set.Watch(desk)
	t.Cleanup(set.Close)
	return n, set
}

// published waits for a message on topic that satisfies cond.
func published(t *testing.T, fake *channeltest.Ntfy, what string, cond func(m channeltest.NtfyMessage) bool) channeltest.NtfyMessage {
	t.Helper()
	var found channeltest.NtfyMessage
	fake.Wait(t, what, func(msgs []channeltest.NtfyMessage) bool {
		for _, m := range msgs {
			if cond(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// TestNtfyPressAnswers: the question is published with an action per
// option that posts its button to the run's reply topic, with the token; a
// press answers it; a forged message on the reply topic is ignored, and a
// press again is told the question has moved on, nothing typed.
func TestNtfyPressAnswers(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewNtfy(t, ntfyToken)
	desk := newFakeDesk()
	log, obs := logs()
	n, _ := startNtfy(t, fake, desk, log, ntfyToken)
	if reply := n.ReplyTopic(); len(reply) < 32 {
		t.Fatalf("the reply topic %q is guessable", reply)
	}
	desk.ask(question("q1", "h1", "Overwrite config.yaml? [y/N]", "y", "N"))
	m := published(t, fake, "the question", func(m channeltest.NtfyMessage) bool { return len(m.Actions) > 0 })
	if m.Topic != "alice-questions" || len(m.Actions) != 2 || m.Actions[0].Label != "y" || m.Actions[1].Label != "N" ||
		!strings.Contains(m.Message, "Overwrite config.yaml? [y/N]") {
		t.Fatalf("the question published: %+v", m)
	}
	no := m.Actions[1]
	if no.Action != "http" || no.Method != http.MethodPost || no.URL != fake.URL()+"/"+n.ReplyTopic() || no.Headers["Authorization"] != "Bearer "+ntfyToken {
		t.Fatalf("the action: %+v", no)
	}
	fake.Publish(n.ReplyTopic(), "rm -rf /")
	fake.Publish(n.ReplyTopic(), strings.Replace(no.Body, "h1", "h0", 1))
	if status := fake.Press(t, no); status != http.StatusOK {
		t.Fatalf("the press: status %d", status)
	}
	fake.Press(t, no)
	fake.Wait(t, "two moved-on messages", func(msgs []channeltest.NtfyMessage) bool {
		count := 0
		for _, m := range msgs {
			if m.Topic == "alice-questions" && strings.Contains(m.Message, channel.MovedOn) {
				count++
			}
		}
		return count == 2
	})
	taken := desk.taken()
	if len(taken) != 1 || taken[0].Choose != "N" || taken[0].Channel != ask.ChannelNtfy || taken[0].ScreenHash != "h1" {
		t.Fatalf("the desk took %+v", taken)
	}
	waitLogs(t, obs, channel.LogIgnored, 1)
	if all := allLogs(obs); strings.Contains(all, n.ReplyTopic()) || strings.Contains(all, ntfyToken) {
		t.Fatalf("the log holds the reply topic or the token:\n%s", all)
	}
}

// TestNtfyManyOptions: ntfy shows three actions at most; a question with
// more says how to answer the others.
func TestNtfyManyOptions(t *testing.T) {
	t.Parallel()
	fake := channeltest.NewNtfy(t, "")
	desk := newFakeDesk()
	startNtfy(t, fake, desk, zap.NewNop(), "")
	desk.ask(question("q1", "h1", "Pick one", "a", "b", "c", "d"))
	m := published(t, fake, "the question", func(m channeltest.NtfyMessage) bool { return len(m.Actions) > 0 })
	if len(m.Actions) != channel.MaxNtfyActions || !strings.Contains(m.Message, "clai answer --question q1 7f3c2a1e TEXT") {
		t.Fatalf("the question published: %+v", m)
	}
	if m.Actions[0].Headers != nil {
		t.Fatalf("an action without a token has headers %v", m.Actions[0].Headers)
	}
}

// TestNtfyHostilePeers: a server that refuses the token, one whose stream
// sends a line longer than the channel reads, and one that never answers
// are logged and retried; none holds the end of the run beyond the grace.
func TestNtfyHostilePeers(t *testing.T) {
	t.Parallel()
	t.Run("wrong token", func(t *testing.T) {
		t.Parallel()
		fake := channeltest.NewNtfy(t, ntfyToken)
		desk := newFakeDesk()
		log, obs := logs()
		startNtfy(t, fake, desk, log, "tk_wrong0123456789")
		desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
		waitLogs(t, obs, channel.LogFailed, 2)
		if all := allLogs(obs); !strings.Contains(all, "status 403") || strings.Contains(all, "tk_wrong") {
			t.Fatalf("the log:\n%s", all)
		}
	})
	t.Run("endless line", func(t *testing.T) {
		t.Parallel()
		fake := channeltest.NewNtfy(t, "")
		fake.Hook = func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodGet {
				return false
			}
			_, _ = io.WriteString(w, `{"event":"message","message":"`+strings.Repeat("x", 1<<20))
			return true
		}
		desk := newFakeDesk()
		log, obs := logs()
		startNtfy(t, fake, desk, log, "")
		waitLogs(t, obs, channel.LogFailed, 1)
		if all := allLogs(obs); !strings.Contains(all, "token too long") {
			t.Fatalf("the log:\n%s", all)
		}
	})
	t.Run("hangs", func(t *testing.T) {
		t.Parallel()
		fake := channeltest.NewNtfy(t, "")
		posts := make(chan struct{}, 16)
		fake.Hook = func(w http.ResponseWriter, r *http.Request) bool {
			_, _ = io.Copy(io.Discard, r.Body)
			if r.Method == http.MethodPost {
				posts <- struct{}{}
			}
			<-r.Context().Done()
			return true
		}
		desk := newFakeDesk()
		_, set := startNtfy(t, fake, desk, zap.NewNop(), "")
		desk.ask(question("q1", "h1", "Continue? [y/n]", "y", "n"))
		<-posts
		desk.end()
		closed := make(chan struct{})
		go func() { set.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(60 * time.Second):
			t.Fatal("Close still waits for a hanging server")
		}
	})
}

// TestNtfyNamesAnotherMachinesSession: the hub's ntfy channel names a
// session of a joined machine HOST/ID in the clai answer command it
// publishes, as the hub's machine lists it; one of its own machine by its
// id.
func TestNtfyNamesAnotherMachinesSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, want string }{
		{"buildbox", "clai answer --question q1 buildbox/7f3c2a1e TEXT"},
		{"laptop", "clai answer --question q1 7f3c2a1e TEXT"},
	} {
		fake := channeltest.NewNtfy(t, "")
		n, err := channel.NewNtfy(channel.NtfyConfig{Server: fake.URL(), Topic: "alice-questions", Host: "laptop"})
		if err != nil {
			t.Fatal(err)
		}
		desk := newFakeDesk()
		desk.session.Host = tc.host
		set := channel.NewSet([]channel.Channel{n}, zap.NewNop(), 50*time.Millisecond)
		set.Watch(desk)
		t.Cleanup(set.Close)
		desk.ask(question("q1", "h1", "Name?"))
		m := published(t, fake, "the question", func(m channeltest.NtfyMessage) bool { return strings.Contains(m.Message, "Name?") })
		if !strings.Contains(m.Message, tc.want) {
			t.Errorf("a session of %s: the question published says\n%s\nwant %q", tc.host, m.Message, tc.want)
		}
	}
}
