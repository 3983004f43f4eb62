package humanloop_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/sessions"
)

// notifyPlaybook hands its one question over to a person; its ntfy target
// reads its password from the environment.
const notifyPlaybook = `
version: 1
name: notify-e2e
spawn: {command: %s}
settings: {settle: 100ms}
timeouts: {prompt: 2s}
danger:
  - name: overwrite
    match: "Overwrite config.yaml?"
notify:
  - url: "ntfy://clai:${NTFY_PASS}@%s/alerts?scheme=http"
    on: [danger, timeout, failed]
`

// post is a request a fake ntfy server got.
type post struct {
	header http.Header
	body   string
}

// fakeNtfyPosts is a server that takes ntfy's publishing posts and keeps
// them in order.
type fakeNtfyPosts struct {
	*httptest.Server
	mu    sync.Mutex
	posts []post
}

func newFakeNtfyPosts(t *testing.T) *fakeNtfyPosts {
	f := &fakeNtfyPosts{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.posts = append(f.posts, post{r.Header.Clone(), string(body)})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"m1"}`))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeNtfyPosts) all() []post {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]post(nil), f.posts...)
}

// A run over a real program reaches a question, a danger rule's hand-over:
// the playbook's ntfy target gets the question and its options, the user
// config file's command target the same as JSON, and each the question's
// close; the run waits for an answer from elsewhere up to timeouts.prompt
// (a headless hand-over ends at once when nobody can answer), and says so
// to the target that asked for the end; the password of the URL shows
// nowhere, and a config file others may read is warned of.
func TestRunNotifiesAQuestion(t *testing.T) {
	iso := isolate(t)
	dir := iso.dir
	ntfy := newFakeNtfyPosts(t)
	pb := parsePlaybook(t, notifyPlaybook, prompterCommand(t, "-q", "Overwrite config.yaml? [y/n] "), strings.TrimPrefix(ntfy.URL, "http://"))
	toldTo, target := toldDir(t, "question")
	config := filepath.Join(dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	// A config file others may read is warned of: it holds tokens.
	if err := os.WriteFile(config, []byte("notify:\n"+target), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(config, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	const password = "ntfy-pa55word-e2e"
	environ := append(os.Environ(), "NTFY_PASS="+password, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var warned bytes.Buffer
	cfg, err := humanloop.LoadConfig(&warned, environ)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warned.String(), "config.yaml may be read by other users (mode 0644)") {
		t.Errorf("no warning of the config file's mode:\n%s", warned.String())
	}
	r := iso.startRun(t, pb, humanloop.Options{Config: cfg, Environ: environ, Headless: true, Quiet: true})
	rep, err := r.wait(t)
	if err != nil || rep == nil || rep.ExitCode != 4 || !strings.Contains(rep.Reason, "within timeouts.prompt") {
		t.Fatalf("the run: %v, %+v, want it ended at the prompt's timeout\n%s", err, rep, r.notices.String())
	}

	posts := ntfy.all()
	if len(posts) != 3 {
		t.Fatalf("the ntfy target got %d posts, want the question, its close and the end: %+v", len(posts), posts)
	}
	q := posts[0]
	if q.header.Get("Title") != "clai: notify-e2e needs you (danger)" {
		t.Errorf("title %q", q.header.Get("Title"))
	}
	for _, want := range []string{"Overwrite config.yaml? [y/n]", "options: y, n", "clai answer "} {
		if !strings.Contains(q.body, want) {
			t.Errorf("the notification lacks %q:\n%s", want, q.body)
		}
	}
	if closed := posts[1]; closed.header.Get("Title") != "clai: notify-e2e: question closed" || !strings.Contains(closed.body, "closed: the run ended") {
		t.Errorf("the close's title %q, body %q", closed.header.Get("Title"), closed.body)
	}
	// The run waited for an answer from elsewhere, then ended at the
	// prompt's timeout, and said so to the target that asked for it.
	end := posts[2]
	if !strings.Contains(end.header.Get("Title"), "clai: notify-e2e ended") {
		t.Errorf("the end's title %q", end.header.Get("Title"))
	}
	var question, closed *notify.Notification
	for _, n := range told(t, toldTo) {
		switch n.Event {
		case notify.EventClosed:
			closed = &n
		default:
			question = &n
		}
	}
	if question == nil || question.Question == nil || len(question.Question.Options) != 2 || question.Question.Options[0].Label != "y" ||
		question.Session.ID == "" || question.Question.Session != question.Session.ID {
		t.Fatalf("the command target's question: %+v", question)
	}
	// The question closed with the run: each target that had it is told.
	if closed == nil || closed.Closed == nil || closed.Closed.Question != question.Question.ID {
		t.Errorf("the command target's close: %+v", closed)
	}
	if !strings.Contains(r.log.String(), notify.LogSent) {
		t.Errorf("the log has no %s line:\n%s", notify.LogSent, r.log.String())
	}
	var data bytes.Buffer
	if err := rep.Write(&data, "json"); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"the output": r.shown.String(), "the notices": r.notices.String(),
		"the log": r.log.String(), "the report": data.String(), "the notifications": q.body + end.body + fmt.Sprint(question, closed)} {
		if strings.Contains(text, password) {
			t.Errorf("%s holds the password", name)
		}
	}
}

// A run of the user of a running clai dashboard puts its URL, with its
// token, in a question's notification, and nowhere else: not in the log,
// the report or the run's notices.
func TestRunNotifiesTheDashboard(t *testing.T) {
	iso := isolate(t)
	reg, err := sessions.Open(iso.sessions)
	if err != nil {
		t.Fatal(err)
	}
	const dashURL = "http://127.0.0.1:4000/?token=d4shb0ard-t0ken"
	dash, err := reg.AnnounceDashboard(dashURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dash.Close() })
	toldTo, target := toldDir(t, "question")
	pb := parsePlaybook(t, "version: 1\nname: ask\nspawn: {command: %s}\nsettings: {settle: 100ms}\ntimeouts: {prompt: 1s}\n",
		prompterCommand(t, "-q", "Proceed? [y/n] "))
	r := iso.startRun(t, pb, humanloop.Options{Config: parseConfig(t, "notify:\n%s", target), Headless: true})
	rep, err := r.wait(t)
	if err != nil || rep == nil {
		t.Fatalf("the run: %v", err)
	}
	var question *notify.Notification
	for _, n := range told(t, toldTo) {
		if n.Event != notify.EventClosed {
			question = &n
		}
	}
	if question == nil || question.Answer == nil || question.Answer.Dashboard != dashURL {
		t.Fatalf("the notification does not name the dashboard %s: %+v", dashURL, question)
	}
	if !strings.Contains(r.log.String(), notify.LogSent) {
		t.Errorf("the log has no %s line:\n%s", notify.LogSent, r.log.String())
	}
	var data bytes.Buffer
	if err := rep.Write(&data, "json"); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"the output": r.shown.String(), "the notices": r.notices.String(),
		"the log": r.log.String(), "the report": data.String()} {
		if strings.Contains(text, "d4shb0ard-t0ken") {
			t.Errorf("%s holds the dashboard's token:\n%s", name, text)
		}
	}
}
