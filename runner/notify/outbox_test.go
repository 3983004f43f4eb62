package notify_test

import (
	"crypto/hmac"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/notify"
)

// later is a backoff no test waits out, within the retry window: a
// notification that waits for it is not tried again while the test runs.
func later(int) time.Duration { return notify.RetryWindow / 2 }

// failFirst answers the first n requests with 503, then 200.
func failFirst(n int) func(int) int {
	return func(i int) int {
		if i <= n {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	}
}

// receive is the next request the server got, decoded; it fails the test
// when none comes in a minute (only a hang: every wait here is at once).
func receive(t *testing.T, got <-chan request) (request, notify.Notification) {
	t.Helper()
	select {
	case r := <-got:
		var n notify.Notification
		if err := json.Unmarshal(r.body, &n); err != nil {
			t.Fatalf("%v: %s", err, r.body)
		}
		return r, n
	case <-time.After(time.Minute):
		t.Fatal("no request came: a notification waits behind another's backoff")
	}
	panic("unreachable")
}

// answered is q closed by a person's answer.
func answered(q *ask.Question, by, channel, sent string) ask.Update {
	c := *q
	c.Closed = &ask.Closed{At: at(20), How: ask.Answered, By: by, Channel: channel, Sent: sent}
	return ask.Update{Kind: ask.UpdateClosed, At: at(20), State: "running", Question: &c}
}

// TestNewerQuestionNotHeldBehindRetries: while the first question waits
// for its next attempt, the second is delivered at once.
func TestNewerQuestionNotHeldBehindRetries(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, failFirst(1))
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL}
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}}, notify.WithBackoff(later), notify.WithGrace(time.Millisecond))
	defer sender.Close()
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "First? [y/N]", "y", "N")))
	if _, n := receive(t, got); n.Question == nil || n.Question.ID != "q1" {
		t.Fatalf("the first attempt: %+v", n)
	}
	q2 := question("q2", "Second? [y/N]", "y", "N")
	q2.AskedAt = at(5)
	desk.publish(questionUpdate(q2))
	if _, n := receive(t, got); n.Question == nil || n.Question.ID != "q2" {
		t.Fatalf("want q2 while q1 backs off, got %+v", n)
	}
}

// TestClosedWhileBackingOffNeverDelivered: a question answered while it
// waits for its next attempt is taken out of the queue: never delivered,
// its close told to nobody, logged as cancelled; the end goes out at once.
func TestClosedWhileBackingOffNeverDelivered(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, failFirst(1))
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL}
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}},
		notify.WithLogger(log), notify.WithBackoff(later), notify.WithGrace(time.Minute))
	desk := newFakeDesk()
	sender.Watch(desk)
	q1 := question("q1", "First? [y/N]", "y", "N")
	desk.publish(questionUpdate(q1))
	receive(t, got) // its first attempt, refused
	desk.publish(answered(q1, "alice", ask.ChannelCLI, "y"))
	desk.end("done", 0)
	sender.Close() // only what is left in the queue would hold it, for the grace
	if _, n := receive(t, got); n.Event != playbooks.NotifyDone {
		t.Errorf("after the refused attempt, want the end, got %+v", n)
	}
	if len(got) != 0 {
		_, n := receive(t, got)
		t.Errorf("more was sent: %+v", n)
	}
	evs, all := events(obs)
	if count(evs, notify.LogCancelled) != 1 || count(evs, notify.LogGaveUp) != 0 || count(evs, notify.LogSent) != 1 {
		t.Errorf("want q1 cancelled, the end sent:\n%s", all)
	}
}

// TestDeliveredQuestionThatClosesIsToldSo: a webhook that has a question
// gets a signed closed event saying who answered it and how; a service URL
// a short follow-up; a target never told of the question hears nothing of
// its close.
func TestDeliveredQuestionThatClosesIsToldSo(t *testing.T) {
	t.Parallel()
	hook, hookGot := fakeServer(t, ok)
	ntfy, ntfyGot := fakeServer(t, ok)
	other, otherGot := fakeServer(t, ok)
	const secret = "hook-s3cret-value"
	sHook := spec(playbooks.NotifyWebhook)
	sHook.Webhook = &playbooks.Webhook{URL: hook.URL, Secret: &playbooks.SecretRef{Source: playbooks.SecretEnv, Name: "HOOK_SECRET"}}
	sNtfy := spec(playbooks.NotifyURL)
	sNtfy.URL = "ntfy://" + strings.TrimPrefix(ntfy.URL, "http://") + "/topic?scheme=http"
	sOther := spec(playbooks.NotifyWebhook)
	sOther.Webhook = &playbooks.Webhook{URL: other.URL}
	sOther.On = []playbooks.NotifyEvent{playbooks.NotifyFailed}
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{
		{Target: open(t, sHook, "HOOK_SECRET="+secret), Spec: sHook},
		{Target: open(t, sNtfy), Spec: sNtfy},
		{Target: open(t, sOther), Spec: sOther},
	}, notify.WithLogger(log))
	desk := newFakeDesk()
	sender.Watch(desk)
	q1 := question("q1", "Overwrite config.yaml? [y/N]", "y", "N")
	desk.publish(questionUpdate(q1))
	receive(t, hookGot)
	<-ntfyGot
	desk.publish(answered(q1, "alice", ask.ChannelTelegram, "y"))
	r, n := receive(t, hookGot)
	if r.header.Get(notify.HeaderEvent) != "closed" || n.Event != notify.EventClosed || r.header.Get(notify.HeaderDelivery) != n.ID {
		t.Errorf("want a closed event: %v\n%s", r.header, r.body)
	}
	if sig := r.header.Get(notify.HeaderSignature); !hmac.Equal([]byte(sig), []byte(notify.Sign([]byte(secret), r.body))) {
		t.Errorf("the closed event's signature %q", sig)
	}
	want := notify.ClosedQuestion{Question: "q1", How: ask.Answered, By: "alice", Channel: ask.ChannelTelegram, Sent: "y"}
	if n.Closed == nil || *n.Closed != want || n.Question == nil || n.Question.ID != "q1" || n.Question.Screen != "" || n.Answer != nil {
		t.Errorf("the closed event: %s", r.body)
	}
	if n.Text != "answered by alice via telegram: y" || !n.At.Equal(at(20)) {
		t.Errorf("text %q at %v", n.Text, n.At)
	}
	validate(t, r.body)
	follow := <-ntfyGot
	if title := follow.header.Get("Title"); title != "clai: installer: question closed" ||
		string(follow.body) != "answered by alice via telegram: y\nquestion: Overwrite config.yaml? [y/N]" {
		t.Errorf("the service URL's follow-up: title %q, %q", title, follow.body)
	}
	desk.end("done", 0)
	sender.Close()
	if len(otherGot) != 0 {
		t.Errorf("a target never told of q1 heard of it: %s", (<-otherGot).body)
	}
	// The log says, of each, the target, the question and the kind.
	var closes int
	for _, e := range obs.FilterField(logField("event", notify.LogSent)).All() {
		m := e.ContextMap()
		if m["kind"] == notify.KindClosed && m["question"] == "q1" && m["on"] == "closed" && m["attempt"] == int64(1) {
			closes++
		}
		if _, ok := m["delay_ms"]; !ok || m["target"] == "" || m["notification"] == "" {
			t.Errorf("a sent line lacks its facts: %v", m)
		}
	}
	if _, all := events(obs); closes != 2 {
		t.Errorf("want 2 closes sent, logged with their question:\n%s", all)
	}
}

// TestCommandTargetToldOfClose: a command target reads the closed event's
// JSON on its stdin.
func TestCommandTargetToldOfClose(t *testing.T) {
	t.Parallel()
	dir, tmp := t.TempDir(), t.TempDir()
	fifo := filepath.Join(tmp, "delivered")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	s := spec(playbooks.NotifyCommand)
	// Each notification lands in a file of its own, numbered; the first
	// says so through the fifo.
	s.Command = []string{"sh", "-c", `n=$(ls "$0" | wc -l); cat > "$0/$((n)).json"; [ "$n" -eq 0 ] && echo x > "$1"; exit 0`, dir, fifo}
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}})
	desk := newFakeDesk()
	sender.Watch(desk)
	q1 := question("q1", "Go on? [y/N]", "y", "N")
	desk.publish(questionUpdate(q1))
	// The question is delivered (or its attempt under way) before it closes.
	if _, err := os.ReadFile(fifo); err != nil {
		t.Fatal(err)
	}
	moved := *q1
	moved.Closed = &ask.Closed{At: at(30), How: ask.MovedOn}
	desk.publish(ask.Update{Kind: ask.UpdateClosed, At: at(30), State: "running", Question: &moved})
	close(desk.watch)
	sender.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var evs []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var n notify.Notification
		if err := json.Unmarshal(data, &n); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		evs = append(evs, string(n.Event))
		if n.Event == notify.EventClosed {
			validate(t, data)
			if n.Closed == nil || n.Closed.How != ask.MovedOn || n.Closed.Question != "q1" || n.Text != "moved on: the program went on by itself" {
				t.Errorf("the close: %s", data)
			}
		}
	}
	if strings.Join(evs, ",") != "question,closed" {
		t.Errorf("the command got %v, want the question then its close", evs)
	}
}

// TestDownTargetGetsTheQuestionOnceUp: a target down for more attempts than
// a few still gets the question while it is open.
func TestDownTargetGetsTheQuestionOnceUp(t *testing.T) {
	t.Parallel()
	const down = 12
	srv, got := fakeServer(t, failFirst(down))
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL}
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}},
		notify.WithLogger(log), notify.WithBackoff(noBackoff), notify.WithGrace(time.Minute))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Proceed? [y/N]", "y", "N")))
	for range down {
		receive(t, got)
	}
	if _, n := receive(t, got); n.Question == nil || n.Question.ID != "q1" {
		t.Fatalf("want q1 once the target is up: %+v", n)
	}
	close(desk.watch)
	sender.Close()
	if evs, all := events(obs); count(evs, notify.LogFailed) != down || count(evs, notify.LogSent) != 1 || count(evs, notify.LogGaveUp) != 0 {
		t.Errorf("want %d failures, then sent:\n%s", down, all)
	}
}

// TestSameQuestionAfterItsCloseIsToldAgain: a target told that a question
// closed is told of the same question asked again, dedup or not.
func TestSameQuestionAfterItsCloseIsToldAgain(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL}
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}})
	desk := newFakeDesk()
	sender.Watch(desk)
	q1 := question("q1", "Continue? [y/N]", "y", "N")
	desk.publish(questionUpdate(q1))
	_, first := receive(t, got)
	desk.publish(answered(q1, "alice", ask.ChannelCLI, "y"))
	q2 := question("q2", "Continue? [y/N]", "y", "N")
	q2.AskedAt = at(40)
	desk.publish(questionUpdate(q2))
	close(desk.watch)
	sender.Close()
	told := []string{string(first.Event) + " " + first.Question.ID}
	for len(got) > 0 {
		_, n := receive(t, got)
		told = append(told, string(n.Event)+" "+n.Question.ID)
	}
	if strings.Join(told, ", ") != "question q1, closed q1, question q2" {
		t.Errorf("told %q", told)
	}
}
