package notify_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/schema"
)

// request is what a fake server received.
type request struct {
	path   string
	header http.Header
	body   []byte
}

// fakeServer answers each request with status(n) for the n-th (from 1) and
// hands it to the test.
func fakeServer(t *testing.T, status func(n int) int) (*httptest.Server, <-chan request) {
	t.Helper()
	got := make(chan request, 64)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- request{path: r.URL.Path, header: r.Header.Clone(), body: body}
		// ntfy's client reads a JSON answer.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status(int(n.Add(1))))
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// hangingServer never answers until the test ends.
func hangingServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	reached := make(chan struct{}, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, reached
}

func ok(int) int { return http.StatusOK }

func TestWebhookSignedAndSchemaValid(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	const secret = "hook-s3cret-value"
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL + "/hook", Secret: &playbooks.SecretRef{Source: playbooks.SecretEnv, Name: "HOOK_SECRET"}}
	target := open(t, s, "HOOK_SECRET="+secret)
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{{Target: target, Spec: s}}, notify.WithLogger(log))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Overwrite config.yaml? [y/N]", "y", "N")))
	desk.end("done", 0)
	sender.Close()

	r := <-got
	mac := notify.Sign([]byte(secret), r.body)
	if sig := r.header.Get(notify.HeaderSignature); !hmac.Equal([]byte(sig), []byte(mac)) {
		t.Errorf("signature %q, want %q", sig, mac)
	}
	if r.header.Get(notify.HeaderEvent) != "question" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", r.header)
	}
	var n notify.Notification
	if err := json.Unmarshal(r.body, &n); err != nil {
		t.Fatal(err)
	}
	if n.Event != playbooks.NotifyQuestion || n.Question == nil || n.Question.Text != "Overwrite config.yaml? [y/N]" ||
		len(n.Question.Options) != 2 || n.Session.ID != "7f3c2a1e" || r.header.Get(notify.HeaderDelivery) != n.ID {
		t.Errorf("notification: %s", r.body)
	}
	want := []string{"clai answer --question q1 --choose y 7f3c2a1e", "clai answer --question q1 --choose N 7f3c2a1e"}
	if n.Answer == nil || !slices.Equal(n.Answer.Choose, want) {
		t.Errorf("answer: %+v, want choose %q", n.Answer, want)
	}
	if bytes.Contains(r.body, []byte(secret)) {
		t.Error("the body holds the secret")
	}
	validate(t, r.body)
	// done is not in the default on:, but this spec asks for every event.
	end := <-got
	var e notify.Notification
	if err := json.Unmarshal(end.body, &e); err != nil || e.Event != playbooks.NotifyDone || e.ExitCode == nil || *e.ExitCode != 0 {
		t.Errorf("end: %s", end.body)
	}
	validate(t, end.body)
	if evs, all := events(obs); count(evs, notify.LogSent) != 2 || strings.Contains(all, secret) {
		t.Errorf("log: %s", all)
	}
}

func validate(t *testing.T, body []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.Notification()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("notification.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("notification.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the notification does not follow its schema: %v\n%s", err, body)
	}
}

// TestNtfy sends through a shoutrrr ntfy URL to a fake ntfy server.
func TestNtfy(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyURL)
	s.URL = "ntfy://" + strings.TrimPrefix(srv.URL, "http://") + "/${TOPIC}?scheme=http"
	target := open(t, s, "TOPIC=clai-alerts")
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{{Target: target, Spec: s}}, notify.WithLogger(log))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Continue? [y/N]", "y", "N")))
	desk.end("done", 0)
	sender.Close()
	r := <-got
	body := string(r.body)
	if r.path != "/clai-alerts" || r.header.Get("Title") != "clai: installer asks" {
		t.Errorf("ntfy request: path %q, title %q", r.path, r.header.Get("Title"))
	}
	for _, want := range []string{"Continue? [y/N]", "options: y, N", "Writing config...", "clai answer --question q1 --choose y 7f3c2a1e"} {
		if !strings.Contains(body, want) {
			t.Errorf("the message lacks %q:\n%s", want, body)
		}
	}
	if evs, all := events(obs); count(evs, notify.LogSent) != 2 || count(evs, notify.LogFailed) != 0 {
		t.Errorf("want the question and the end sent at once:\n%s", all)
	}
}

// TestMattermost sends through a chat service whose host the URL sets.
func TestMattermost(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyURL)
	s.URL = "mattermost://" + strings.TrimPrefix(srv.URL, "http://") + "/${MM_TOKEN}?disabletls=yes"
	target := open(t, s, "MM_TOKEN=mm-t0ken-value")
	if strings.Contains(target.Name(), "mm-t0ken") {
		t.Errorf("the target's name holds its token: %s", target.Name())
	}
	sender := notify.NewSender([]notify.Route{{Target: target, Spec: s}})
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Deploy to production?", "Yes", "No")))
	desk.end("done", 0)
	sender.Close()
	r := <-got
	var msg struct{ Text string }
	if err := json.Unmarshal(r.body, &msg); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	if r.path != "/hooks/mm-t0ken-value" || !strings.HasPrefix(msg.Text, "clai: installer asks\nDeploy to production?") {
		t.Errorf("mattermost request: path %q, text %q", r.path, msg.Text)
	}
}

// TestFailingTargetRetriedThenGivenUp: a target that fails is retried; one
// that always fails is given up after its attempts; the token of its URL is
// in no log line.
func TestFailingTargetRetriedThenGivenUp(t *testing.T) {
	t.Parallel()
	flaky, flakyGot := fakeServer(t, func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	broken, _ := fakeServer(t, func(int) int { return http.StatusBadGateway })
	// A server that is gone refuses the connection: Go's error quotes the URL.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	const token = "tok-9f8e7d6c5b"
	const attempts = 5
	sFlaky, sBroken, sGone := spec(playbooks.NotifyWebhook), spec(playbooks.NotifyWebhook), spec(playbooks.NotifyWebhook)
	sFlaky.Webhook = &playbooks.Webhook{URL: flaky.URL + "/flaky"}
	sBroken.Webhook = &playbooks.Webhook{URL: broken.URL + "/hooks/${TOKEN}?key=${TOKEN}"}
	sGone.Webhook = &playbooks.Webhook{URL: gone.URL + "/hooks/${TOKEN}?key=${TOKEN}"}
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{
		{Target: open(t, sFlaky), Spec: sFlaky},
		{Target: open(t, sBroken, "TOKEN="+token), Spec: sBroken},
		{Target: open(t, sGone, "TOKEN="+token), Spec: sGone},
	}, notify.WithLogger(log), notify.WithBackoff(noBackoff), notify.WithRetryBounds(attempts, time.Hour), notify.WithGrace(time.Minute))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Proceed?", "y", "n")))
	close(desk.watch)
	sender.Close()
	for range 3 {
		<-flakyGot
	}
	evs, all := events(obs)
	if count(evs, notify.LogFailed) != 2+2*attempts || count(evs, notify.LogSent) != 1 || count(evs, notify.LogGaveUp) != 2 {
		t.Errorf("want 2 failures then sent for one, %d failures then given up for the others; log:\n%s", attempts, all)
	}
	if strings.Contains(all, token) {
		t.Errorf("the log holds the token:\n%s", all)
	}
	if !strings.Contains(all, "status 502") || !strings.Contains(all, "connection refused") {
		t.Errorf("the log does not say why:\n%s", all)
	}
}

// TestHangingTargetHoldsNothing: a target that never answers neither delays
// the others nor the end past the grace; what it held is given up.
func TestHangingTargetHoldsNothing(t *testing.T) {
	t.Parallel()
	hanging, reached := hangingServer(t)
	good, goodGot := fakeServer(t, ok)
	sHang, sGood := spec(playbooks.NotifyWebhook), spec(playbooks.NotifyWebhook)
	sHang.Webhook = &playbooks.Webhook{URL: hanging.URL}
	sHang.Timeout = playbooks.MaxNotifyTimeout
	sGood.Webhook = &playbooks.Webhook{URL: good.URL}
	// A service URL's send takes no context: it is left behind, not waited for.
	sNtfy := spec(playbooks.NotifyURL)
	sNtfy.URL = "ntfy://" + strings.TrimPrefix(hanging.URL, "http://") + "/topic?scheme=http"
	sNtfy.Timeout = playbooks.MaxNotifyTimeout
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{
		{Target: open(t, sHang), Spec: sHang},
		{Target: open(t, sGood), Spec: sGood},
		{Target: open(t, sNtfy), Spec: sNtfy},
	}, notify.WithLogger(log), notify.WithGrace(10*time.Millisecond))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "First?", "y")))
	desk.publish(questionUpdate(question("q2", "Second?", "y")))
	<-reached
	<-reached // both hanging targets are in their first attempt
	<-goodGot
	<-goodGot // the good target got both while the others hang on the first
	desk.end("failed", 1)
	closed := make(chan struct{})
	go func() { sender.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute): // only a hang: the grace is 10ms, the target's timeout 5m
		t.Fatal("Close waits for a hanging target")
	}
	evs, all := events(obs)
	// Of each hanging target, the first is given up in flight, the second
	// and the end in the queue.
	if count(evs, notify.LogGaveUp) != 6 || count(evs, notify.LogSent) < 2 {
		t.Errorf("want 6 given up, the good target's sent; log:\n%s", all)
	}
}

// TestQueueBounded: a target that does not keep up loses its oldest
// notifications, each logged, and holds at most QueueSize.
func TestQueueBounded(t *testing.T) {
	t.Parallel()
	hanging, reached := hangingServer(t)
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: hanging.URL}
	s.RateMax, s.Dedup = playbooks.MaxNotifyRate, 0
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}}, notify.WithLogger(log), notify.WithGrace(time.Millisecond))
	const many = 1000
	sender.Notify(questionUpdate(question("q0", "Q0?")), newFakeDesk().session)
	<-reached
	for i := 1; i <= many; i++ {
		sender.Notify(questionUpdate(question("q", "Q?")), newFakeDesk().session)
	}
	sender.Close()
	evs, all := events(obs)
	if d := count(evs, notify.LogDropped); d != many-notify.QueueSize {
		t.Errorf("%d dropped, want %d", d, many-notify.QueueSize)
	}
	if g := count(evs, notify.LogGaveUp); g != notify.QueueSize+1 {
		t.Errorf("%d given up, want %d:\n%s", g, notify.QueueSize+1, all[:min(len(all), 2000)])
	}
}

// TestRateAndDedup: the same notification is sent once within dedup, and no
// more than the rate allows.
func TestRateAndDedup(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL}
	s.RateMax, s.RatePer, s.Dedup = 2, time.Minute, 10*time.Minute
	log, obs := logs()
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}}, notify.WithLogger(log))
	session := newFakeDesk().session
	same := question("q1", "Same?", "y")
	sender.Notify(questionUpdate(same), session)
	again := *same
	again.ID, again.AskedAt = "q2", at(30)
	sender.Notify(questionUpdate(&again), session) // the same within dedup
	other := question("q3", "Other?", "y")
	other.AskedAt = at(40)
	sender.Notify(questionUpdate(other), session)
	third := question("q4", "Third?", "y")
	third.AskedAt = at(50)
	sender.Notify(questionUpdate(third), session) // over the rate of 2 a minute
	// A new minute: what the rate held back was not sent, so the same
	// question is no duplicate.
	thirdAgain := question("q5", "Third?", "y")
	thirdAgain.AskedAt = at(200)
	sender.Notify(questionUpdate(thirdAgain), session)
	sender.Close()
	var texts []string
	for len(got) > 0 {
		var n notify.Notification
		_ = json.Unmarshal((<-got).body, &n)
		texts = append(texts, n.Text)
	}
	if !slices.Equal(texts, []string{"Same?", "Other?", "Third?"}) {
		t.Errorf("sent %q", texts)
	}
	if evs, all := events(obs); count(evs, notify.LogDropped) != 2 {
		t.Errorf("want 2 held back:\n%s", all)
	}
}

// TestCommandTarget: the program reads the JSON on stdin; one that hangs is
// killed with what it started when its timeout ends.
func TestCommandTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "got.json")
	s := spec(playbooks.NotifyCommand)
	s.Command = []string{"sh", "-c", `cat > "$0"`, out}
	sHang := spec(playbooks.NotifyCommand)
	pidFile := filepath.Join(dir, "grandchild.pid")
	sHang.Command = []string{"sh", "-c", `sleep 600 & echo $! > "$0"; wait`, pidFile}
	sHang.Timeout = 200 * time.Millisecond
	log, obs := logs()
	const attempts = 3
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}, {Target: open(t, sHang), Spec: sHang}},
		notify.WithLogger(log), notify.WithBackoff(noBackoff), notify.WithRetryBounds(attempts, time.Hour), notify.WithGrace(time.Minute))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Go on? [y/N]", "y", "N")))
	close(desk.watch)
	sender.Close()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, data)
	evs, all := events(obs)
	if count(evs, notify.LogSent) != 1 || count(evs, notify.LogFailed) != attempts || !strings.Contains(all, "killed") {
		t.Errorf("want the hanging command killed at each attempt:\n%s", all)
	}
	assertGone(t, pidFile)
}

// TestCandidates: which events an update is told as.
func TestCandidates(t *testing.T) {
	t.Parallel()
	s := spec(playbooks.NotifyWebhook)
	s.On = []playbooks.NotifyEvent{playbooks.NotifyManual, playbooks.NotifyQuestion}
	danger := question("q1", "Proceed? [y/N]", "y", "N")
	danger.Reason = ask.Danger
	cases := []struct {
		u    ask.Update
		want string // the event the target is told, "" none
	}{
		{questionUpdate(question("q", "Name:")), "question"},
		{questionUpdate(danger), "manual"},
		{ask.Update{Kind: ask.UpdateDanger, State: "running", Reason: "manual", Rule: "wipe"}, ""},
		{ask.Update{Kind: ask.UpdateDanger, State: "manual", Reason: "deny", Rule: "wipe"}, ""},
		{ask.Update{Kind: ask.UpdateState, State: "manual"}, ""},
		{ask.Update{Kind: ask.UpdateDecision, State: "running"}, ""},
	}
	for _, c := range cases {
		srv, got := fakeServer(t, ok)
		s.Webhook = &playbooks.Webhook{URL: srv.URL}
		sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}})
		sender.Notify(c.u, newFakeDesk().session)
		sender.Close()
		ev := ""
		select {
		case r := <-got:
			ev = r.header.Get(notify.HeaderEvent)
		default:
		}
		if ev != c.want {
			t.Errorf("%s (%v): told as %q, want %q", c.u.Kind, c.u.Question != nil, ev, c.want)
		}
	}
}

// TestHostileLabelsQuoted: an option's label cannot run as a command when a
// person pastes the answer's command.
func TestHostileLabelsQuoted(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL}
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}})
	sender.Notify(questionUpdate(question("q1", "Pick", "$(rm -rf ~)", "it's\n; reboot")), newFakeDesk().session)
	sender.Close()
	var n notify.Notification
	_ = json.Unmarshal((<-got).body, &n)
	want := []string{`clai answer --question q1 --choose '$(rm -rf ~)' 7f3c2a1e`, `clai answer --question q1 --choose 'it'\''s; reboot' 7f3c2a1e`}
	if !slices.Equal(n.Answer.Choose, want) {
		t.Errorf("choose commands %q, want %q", n.Answer.Choose, want)
	}
}

// TestOpenNeverShowsSecrets: a target that cannot open says why without its
// token; a missing variable is named.
func TestOpenNeverShowsSecrets(t *testing.T) {
	t.Parallel()
	s := spec(playbooks.NotifyURL)
	s.URL = "ntfy://ntfy.example/${TOPIC}"
	if _, err := notify.Open(s, notify.Environment{}); err == nil || !strings.Contains(err.Error(), "TOPIC is not set") {
		t.Errorf("a missing variable: %v", err)
	}
	// The same variable with a default elsewhere in the URL is still needed.
	s.URL = "ntfy://ntfy.example/${TOPIC}?title=${TOPIC:-clai}"
	if _, err := notify.Open(s, notify.Environment{}); err == nil || !strings.Contains(err.Error(), "TOPIC is not set") {
		t.Errorf("a variable needed once and defaulted once: %v", err)
	}
	s.URL = "telegram://${TG}@telegram"
	_, err := notify.Open(s, notify.Environment{Environ: []string{"TG=123456:AAH-secret-part"}})
	if err == nil || strings.Contains(err.Error(), "AAH-secret") || strings.Contains(err.Error(), "123456") {
		t.Errorf("telegram without chats: %v", err)
	}
}

// kindsDesk is a fakeDesk whose watchers may take some kinds only; it keeps
// the kinds it was asked for.
type kindsDesk struct {
	*fakeDesk
	kinds chan []string
}

func (d *kindsDesk) WatchKinds(_ context.Context, kinds ...string) <-chan ask.Update {
	d.kinds <- kinds
	return d.watch
}

// The sender takes only the updates that can tell anyone, so that clai's
// answers and the screen's changes never reach it; those it takes tell.
func TestSenderWatchesOnlyWhatTells(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL + "/hook"}
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}})
	desk := &kindsDesk{fakeDesk: newFakeDesk(), kinds: make(chan []string, 1)}
	sender.Watch(desk)
	var kinds []string
	select {
	case kinds = <-desk.kinds:
	default:
		t.Fatal("the sender watches every kind of update")
	}
	slices.Sort(kinds)
	if want := []string{ask.UpdateClosed, ask.UpdateDanger, ask.UpdateEnd, ask.UpdateQuestion}; !slices.Equal(kinds, want) {
		t.Fatalf("the sender watches %v, want %v", kinds, want)
	}
	desk.publish(questionUpdate(question("q1", "Overwrite config.yaml? [y/N]", "y", "N")))
	desk.end("done", 0)
	sender.Close()
	if r := <-got; r.header.Get(notify.HeaderEvent) != "question" {
		t.Fatalf("the question was not told: %v", r.header)
	}
}

// With a triage, a question the answerer takes is told to nobody, and one
// it leaves to people is told with its model's summary as the text.
func TestTriageTellsOnlyWhatTheAnswererLeaves(t *testing.T) {
	t.Parallel()
	srv, got := fakeServer(t, ok)
	s := spec(playbooks.NotifyWebhook)
	s.Webhook = &playbooks.Webhook{URL: srv.URL + "/hook"}
	decide := func(_ context.Context, q ask.Question) (string, bool) {
		if q.ID == "q1" {
			return "", true
		}
		return "the installer wants to overwrite its config", false
	}
	sender := notify.NewSender([]notify.Route{{Target: open(t, s), Spec: s}}, notify.WithTriage(decide, time.Hour))
	desk := newFakeDesk()
	sender.Watch(desk)
	desk.publish(questionUpdate(question("q1", "Continue? [Y/n]", "Y", "n")))
	desk.publish(ask.Update{Kind: ask.UpdateClosed, State: "running", Question: question("q1", "Continue? [Y/n]", "Y", "n")})
	desk.publish(questionUpdate(question("q2", "Overwrite config.yaml? [y/N]", "y", "N")))
	var n notify.Notification
	if r := <-got; json.Unmarshal(r.body, &n) != nil || n.Question == nil || n.Question.ID != "q2" ||
		n.Text != "the installer wants to overwrite its config" || n.Question.Summary != n.Text {
		t.Fatalf("the first notification, want q2 with its summary: %s", r.body)
	}
	desk.end("done", 0)
	sender.Close()
	// q1, which the answerer took, was told to nobody: its close neither.
	if r := <-got; r.header.Get(notify.HeaderEvent) != "done" || len(got) != 0 {
		t.Errorf("after q2, want the end only: %s", r.body)
	}
}
