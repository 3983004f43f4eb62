package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/notify"
)

// fakeDesk is a running session whose updates the test publishes.
type fakeDesk struct {
	session ask.Session
	watch   chan ask.Update
}

func newFakeDesk() *fakeDesk {
	return &fakeDesk{session: ask.Session{ID: "7f3c2a1e", Name: "installer", Playbook: "installer",
		Program: []string{"./install.sh"}, PID: 4242, State: "prompting"}, watch: make(chan ask.Update, 64)}
}

func (d *fakeDesk) Session() ask.Session { return d.session }
func (d *fakeDesk) Screen() ask.Screen   { return ask.Screen{} }
func (d *fakeDesk) Answer(context.Context, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question is open"}
}
func (d *fakeDesk) Watch(ctx context.Context) <-chan ask.Update { return d.watch }

// publish sends u to the watcher.
func (d *fakeDesk) publish(u ask.Update) { d.watch <- u }

// end publishes the run's end and closes the stream, as a run does.
func (d *fakeDesk) end(outcome string, code int) {
	d.publish(ask.Update{Kind: ask.UpdateEnd, At: at(60), State: outcome, Outcome: outcome, ExitCode: &code})
	close(d.watch)
}

var epoch = time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return epoch.Add(time.Duration(sec) * time.Second) }

// question is a question a prompt opened.
func question(id, text string, labels ...string) *ask.Question {
	q := &ask.Question{ID: id, Session: "7f3c2a1e", Playbook: "installer", Reason: ask.Prompt, Text: text,
		Screen: "Writing config...\n" + text, ScreenHash: "h-" + id, AskedAt: at(1)}
	for _, l := range labels {
		q.Options = append(q.Options, ask.Option{Label: l})
	}
	return q
}

func questionUpdate(q *ask.Question) ask.Update {
	return ask.Update{Kind: ask.UpdateQuestion, At: q.AskedAt, State: "prompting", Question: q}
}

// spec is a target's spec with the defaults, told of every event.
func spec(kind playbooks.NotifyKind) *playbooks.Notify {
	return &playbooks.Notify{Kind: kind, On: playbooks.NotifyEvents(), RateMax: playbooks.DefaultNotifyRateMax,
		RatePer: playbooks.DefaultNotifyRatePer, Dedup: playbooks.DefaultNotifyDedup, Timeout: 10 * time.Second}
}

// logs is an observed logger.
func logs() (*zap.Logger, *observer.ObservedLogs) {
	core, obs := observer.New(zap.DebugLevel)
	return zap.New(core), obs
}

// events lists the event field of each line, and the whole of each line.
func events(obs *observer.ObservedLogs) ([]string, string) {
	var evs []string
	var all strings.Builder
	for _, e := range obs.All() {
		m := e.ContextMap()
		ev, _ := m["event"].(string)
		evs = append(evs, ev)
		all.WriteString(e.Message)
		for k, v := range m {
			all.WriteString(" " + k + "=")
			if s, ok := v.(string); ok {
				all.WriteString(s)
			}
		}
		all.WriteString("\n")
	}
	return evs, all.String()
}

func count(evs []string, ev string) int {
	n := 0
	for _, e := range evs {
		if e == ev {
			n++
		}
	}
	return n
}

// noBackoff retries at once.
func noBackoff(int) time.Duration { return 0 }

// open opens a target or fails the test.
func open(t *testing.T, s *playbooks.Notify, environ ...string) notify.Target {
	t.Helper()
	tg, err := notify.Open(s, notify.Environment{Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// logField is a string field of a log line, to filter lines by.
func logField(key, value string) zap.Field { return zap.String(key, value) }
