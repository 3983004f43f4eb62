package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// fakeSource is a Source of one session whose answers are checked as a
// run checks them: the open question and its screen hash.
type fakeSource struct {
	mu      sync.Mutex
	session ask.Session
	screen  ask.Screen
	answers []ask.Answer
	updates chan ask.Update
	listErr error
}

func newFakeSource() *fakeSource {
	q := &ask.Question{ID: "q1", Session: "s1", Reason: ask.Prompt, Text: "Continue? [y/N]",
		Options: []ask.Option{{Label: "y"}, {Label: "N"}}, ScreenHash: "h1"}
	return &fakeSource{
		session: ask.Session{ID: "s1", Name: "deploy", Playbook: "deploy", State: "prompting", Question: q},
		screen:  ask.Screen{Rows: 2, Cols: 20, Text: "Continue? [y/N]", ANSI: "\x1b[31mContinue?\x1b[m [y/N]", Hash: "h1"},
		updates: make(chan ask.Update, 16),
	}
}

func (f *fakeSource) List(context.Context) ([]ask.Session, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listErr != nil {
		return nil, f.listErr
	}
	return []ask.Session{f.session}, nil
}

func (f *fakeSource) Screen(context.Context, string) (ask.Screen, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.screen, nil
}

func (f *fakeSource) Events(ctx context.Context, _ string, fn func(ask.Update) bool) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case u := <-f.updates:
			if !fn(u) {
				return nil
			}
		}
	}
}

// Answer checks a as a run does; an accepted answer closes the question,
// in the session's listing and in its updates, as a run's does.
func (f *fakeSource) Answer(_ context.Context, id string, a ask.Answer) (ask.Sent, error) {
	f.mu.Lock()
	f.answers = append(f.answers, a)
	q := f.session.Question
	switch {
	case id != f.session.ID || q == nil || q.ID != a.Question:
		f.mu.Unlock()
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question is open"}
	case a.ScreenHash != f.screen.Hash:
		f.mu.Unlock()
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedStale, Reason: "the screen changed since the answer was given"}
	}
	sent := ask.Sent{Question: a.Question, Sent: "choose " + quoted(append([]string{a.Choose}, a.Choices...))}
	f.session.Question = nil
	f.mu.Unlock()
	closed := *q
	closed.Closed = &ask.Closed{At: time.Now(), How: ask.Answered, By: a.By, Channel: a.Channel, Sent: sent.Sent}
	f.updates <- ask.Update{Kind: ask.UpdateClosed, At: time.Now(), State: "prompting", Question: &closed}
	return sent, nil
}

// quoted quotes each of the non-empty labels, comma-separated, as a typist
// shows what it chose.
func quoted(labels []string) string {
	var q []string
	for _, l := range labels {
		if l != "" {
			q = append(q, strconv.Quote(l))
		}
	}
	return strings.Join(q, ", ")
}

const testToken = "tok-0123456789"

// newTestServer is a dashboard of src listening on port 8123 as far as its
// checks know (requests go to its handler directly).
func newTestServer(src Source) *Server {
	return New(src, Config{Token: testToken, Port: 8123, User: "alice"})
}

// request sends a request to h as a browser on the dashboard's own page
// would, changed by edit.
func request(h http.Handler, method, target, body string, edit func(*http.Request)) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Host = "127.0.0.1:8123"
	r.AddCookie(&http.Cookie{Name: "clai_dashboard_8123", Value: testToken})
	if method == http.MethodPost {
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Origin", "http://127.0.0.1:8123")
	}
	if edit != nil {
		edit(r)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestTokenIsRequired(t *testing.T) {
	t.Parallel()
	h := newTestServer(newFakeSource()).Handler()
	for _, tc := range []struct {
		name string
		edit func(*http.Request)
		want int
	}{
		{"cookie", nil, http.StatusOK},
		{"no token", func(r *http.Request) { r.Header.Del("Cookie") }, http.StatusUnauthorized},
		{"wrong cookie", func(r *http.Request) {
			r.Header.Del("Cookie")
			r.AddCookie(&http.Cookie{Name: "clai_dashboard_8123", Value: testToken + "x"})
		}, http.StatusUnauthorized},
		{"another port's cookie", func(r *http.Request) {
			r.Header.Del("Cookie")
			r.AddCookie(&http.Cookie{Name: "clai_dashboard_9999", Value: testToken})
		}, http.StatusUnauthorized},
		{"header", func(r *http.Request) { r.Header.Del("Cookie"); r.Header.Set(tokenHeader, testToken) }, http.StatusOK},
		{"wrong header", func(r *http.Request) { r.Header.Set(tokenHeader, "nope") }, http.StatusUnauthorized},
	} {
		for _, path := range []string{"/", "/app.js", "/app.css", "/favicon.svg", "/favicon.ico"} {
			if w := request(h, http.MethodGet, path, "", tc.edit); w.Code != tc.want {
				t.Errorf("%s: GET %s: %d, want %d: %s", tc.name, path, w.Code, tc.want, w.Body)
			}
		}
	}
}

func TestTokenInURLSetsCookie(t *testing.T) {
	t.Parallel()
	h := newTestServer(newFakeSource()).Handler()
	w := request(h, http.MethodGet, "/?token="+testToken, "", func(r *http.Request) { r.Header.Del("Cookie") })
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/" {
		t.Fatalf("GET /?token=: %d to %q, want 303 to /", w.Code, w.Header().Get("Location"))
	}
	c := w.Result().Cookies()
	if len(c) != 1 || c[0].Name != "clai_dashboard_8123" || c[0].Value != testToken || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie: %+v", c)
	}
	w = request(h, http.MethodGet, "/?token=wrong", "", func(r *http.Request) { r.Header.Del("Cookie") })
	if w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 {
		t.Fatalf("GET /?token=wrong: %d, cookies %v", w.Code, w.Result().Cookies())
	}
}

func TestHostIsChecked(t *testing.T) {
	t.Parallel()
	h := newTestServer(newFakeSource()).Handler()
	for host, want := range map[string]int{
		"127.0.0.1:8123":    http.StatusOK,
		"localhost:8123":    http.StatusOK,
		"LOCALHOST:8123":    http.StatusOK,
		"[::1]:8123":        http.StatusOK,
		"127.0.0.1:8124":    http.StatusForbidden,
		"evil.example:8123": http.StatusForbidden, // DNS rebinding
		"192.168.1.5:8123":  http.StatusForbidden, // only when exposed
		"127.0.0.1":         http.StatusForbidden,
		"":                  http.StatusForbidden,
	} {
		if w := request(h, http.MethodGet, "/", "", func(r *http.Request) { r.Host = host }); w.Code != want {
			t.Errorf("Host %q: %d, want %d", host, w.Code, want)
		}
	}
	exposed := New(newFakeSource(), Config{Token: testToken, Port: 8123, Exposed: true, Hostname: "box"}).Handler()
	for host, want := range map[string]int{
		"192.168.1.5:8123":  http.StatusOK,
		"box:8123":          http.StatusOK,
		"evil.example:8123": http.StatusForbidden,
	} {
		if w := request(exposed, http.MethodGet, "/", "", func(r *http.Request) { r.Host = host }); w.Code != want {
			t.Errorf("exposed, Host %q: %d, want %d", host, w.Code, want)
		}
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	h := newTestServer(src).Handler()
	body := `{"session":"s1","question":"q1","screen_hash":"h1","choose":"y"}`
	for _, tc := range []struct {
		name string
		edit func(*http.Request)
	}{
		{"another origin", func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
		{"another port", func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:9999") }},
		{"null origin", func(r *http.Request) { r.Header.Set("Origin", "null") }},
		{"cross-site fetch", func(r *http.Request) { r.Header.Del("Origin"); r.Header.Set("Sec-Fetch-Site", "cross-site") }},
		{"a form's body", func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") }},
		{"text/plain", func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }},
	} {
		w := request(h, http.MethodPost, "/api/answer", body, tc.edit)
		if w.Code != http.StatusForbidden && w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 403 or 400: %s", tc.name, w.Code, w.Body)
		}
	}
	if w := request(h, http.MethodGet, "/api/answer", "", nil); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/answer: %d, want 405", w.Code)
	}
	if len(src.answers) != 0 {
		t.Fatalf("answers reached the session: %+v", src.answers)
	}
}

func TestAnswerIsBounded(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	h := newTestServer(src).Handler()
	long := strings.Repeat("x", maxTextLen+1)
	keys := `"` + strings.Repeat(`enter","`, maxKeys) + `enter"`
	for name, body := range map[string]string{
		"not JSON":         `choose=y`,
		"two values":       `{"session":"s1","question":"q1","choose":"y"}{}`,
		"unknown field":    `{"session":"s1","question":"q1","choose":"y","by":"mallory"}`,
		"no session":       `{"question":"q1","choose":"y"}`,
		"no question":      `{"session":"s1","choose":"y"}`,
		"long text":        `{"session":"s1","question":"q1","text":"` + long + `"}`,
		"too many keys":    `{"session":"s1","question":"q1","keys":[` + keys + `]}`,
		"long key":         `{"session":"s1","question":"q1","keys":["` + strings.Repeat("k", maxKeyLen+1) + `"]}`,
		"too many choices": `{"session":"s1","question":"q1","choices":[` + strings.Repeat(`"y",`, maxChoices) + `"y"]}`,
		"long choice":      `{"session":"s1","question":"q1","choices":["y","` + strings.Repeat("c", maxChooseLen+1) + `"]}`,
		"too large":        `{"session":"s1","question":"q1","text":"` + strings.Repeat("x", maxAnswerBody) + `"}`,
		"long session id":  `{"session":"` + strings.Repeat("s", maxIDLen+1) + `","question":"q1","choose":"y"}`,
	} {
		w := request(h, http.MethodPost, "/api/answer", body, nil)
		var e struct{ Error string }
		if w.Code != http.StatusBadRequest || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
			t.Errorf("%s: %d %s, want 400 with the reason", name, w.Code, w.Body)
		}
	}
	if len(src.answers) != 0 {
		t.Fatalf("answers reached the session: %+v", src.answers)
	}
}

func TestAnswerGoesToTheSessionAndRefusalsComeBack(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	h := newTestServer(src).Handler()
	w := request(h, http.MethodPost, "/api/answer", `{"session":"s1","question":"q1","screen_hash":"old","choose":"y"}`, nil)
	var refusal ask.Refusal
	if w.Code != http.StatusConflict || json.Unmarshal(w.Body.Bytes(), &refusal) != nil || refusal.Code != ask.RefusedStale {
		t.Fatalf("stale answer: %d %s, want 409 stale", w.Code, w.Body)
	}
	w = request(h, http.MethodPost, "/api/answer", `{"session":"s1","question":"q1","screen_hash":"h1","choose":"y"}`, nil)
	var sent ask.Sent
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &sent) != nil || sent.Sent != `choose "y"` {
		t.Fatalf("answer: %d %s", w.Code, w.Body)
	}
	w = request(h, http.MethodPost, "/api/answer", `{"session":"s1","question":"q1","screen_hash":"h1","choose":"N"}`, nil)
	if w.Code != http.StatusConflict || json.Unmarshal(w.Body.Bytes(), &refusal) != nil || refusal.Code != ask.RefusedNoQuestion || refusal.Reason == "" {
		t.Fatalf("second answer: %d %s, want 409 with the reason", w.Code, w.Body)
	}
	a := src.answers[1]
	if a.By != "alice" || a.Channel != ask.ChannelDashboard || a.Question != "q1" || a.ScreenHash != "h1" || a.Choose != "y" {
		t.Fatalf("the session got %+v", a)
	}
}

// TestAnswerOfSeveralOptionsGoesToTheSession: a multi-select question is
// answered with the labels of the options ticked, as Choices.
func TestAnswerOfSeveralOptionsGoesToTheSession(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	src.session.Question.MultiSelect = true
	h := newTestServer(src).Handler()
	w := request(h, http.MethodPost, "/api/answer", `{"session":"s1","question":"q1","screen_hash":"h1","choices":["y","N"]}`, nil)
	var sent ask.Sent
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &sent) != nil || sent.Sent != `choose "y", "N"` {
		t.Fatalf("answer: %d %s", w.Code, w.Body)
	}
	if a := src.answers[0]; !slices.Equal(a.Choices, []string{"y", "N"}) || a.Choose != "" || a.Channel != ask.ChannelDashboard || a.By != "alice" {
		t.Fatalf("the session got %+v", a)
	}
}

func TestAnswerToASessionThatCannotBeReached(t *testing.T) {
	t.Parallel()
	h := New(unreachable{}, Config{Token: testToken, Port: 8123}).Handler()
	w := request(h, http.MethodPost, "/api/answer", `{"session":"s1","question":"q1","choose":"y"}`, nil)
	if w.Code != http.StatusBadGateway || !strings.Contains(w.Body.String(), "connection refused") {
		t.Fatalf("%d %s, want 502 with the reason", w.Code, w.Body)
	}
}

type unreachable struct{ Source }

func (unreachable) Answer(context.Context, string, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, errors.New("dial unix /run/s1.sock: connection refused")
}

func TestEveryReplyForbidsWhatThePageNeedsNot(t *testing.T) {
	t.Parallel()
	h := newTestServer(newFakeSource()).Handler()
	for _, edit := range []func(*http.Request){nil, func(r *http.Request) { r.Header.Del("Cookie") }, func(r *http.Request) { r.Host = "evil.example:8123" }} {
		w := request(h, http.MethodGet, "/", "", edit)
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%d: CSP %q", w.Code, csp)
		}
		if w.Header().Get("X-Content-Type-Options") != "nosniff" || w.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%d: headers %v", w.Code, w.Header())
		}
	}
	page := request(h, http.MethodGet, "/", "", nil).Body.String()
	if strings.Contains(page, "<script>") || strings.Contains(page, "style=") || !strings.Contains(page, `<script src="/app.js"`) {
		t.Fatalf("the page has inline script or style, or not its own script:\n%s", page)
	}
}

// sse reads the events of a stream.
type sse struct {
	sc *bufio.Scanner
}

// next returns the next event and its data.
func (s *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var event string
	for s.sc.Scan() {
		line := s.sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return event, d
		}
	}
	t.Fatalf("the stream ended: %v", s.sc.Err())
	return "", ""
}

// openEvents opens a page's event stream of s, as its page does, until ctx
// ends.
func openEvents(t *testing.T, ctx context.Context, s *Server) *sse {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/events", nil)
	req.Host = "127.0.0.1:8123"
	req.Header.Set(tokenHeader, testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	return &sse{bufio.NewScanner(resp.Body)}
}

// untilView reads views of the stream until ok is true of one.
func (s *sse) untilView(t *testing.T, ok func(view) bool) view {
	t.Helper()
	for {
		event, data := s.next(t)
		if event != "session" {
			continue
		}
		var v view
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatal(err)
		}
		if ok(v) {
			return v
		}
	}
}

func TestEventsFollowTheSession(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	s := newTestServer(src)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Run(ctx)
	stream := openEvents(t, ctx, s)
	v := stream.untilView(t, func(v view) bool { return v.Screen.Hash == "h1" })
	if v.Session.Question == nil || v.Session.Question.ID != "q1" || v.Screen.HTML != `<span class="f1">Continue?</span> [y/N]` {
		t.Fatalf("first view: %+v", v)
	}
	// A question that opens reaches the page with the screen it was asked
	// on, so that an answer from the page names that screen.
	src.mu.Lock()
	src.screen = ask.Screen{Text: "Sure? [y/N]", Hash: "h2"}
	src.mu.Unlock()
	src.updates <- ask.Update{Kind: ask.UpdateQuestion, State: "prompting", Question: &ask.Question{ID: "q2", Text: "Sure? [y/N]", ScreenHash: "h2"}}
	v = stream.untilView(t, func(v view) bool { return v.Session.Question != nil && v.Session.Question.ID == "q2" })
	if v.Screen.Hash != "h2" || v.Screen.HTML != "Sure? [y/N]" {
		t.Fatalf("the question came with the screen %+v", v.Screen)
	}
	one := 1
	src.updates <- ask.Update{Kind: ask.UpdateDecision, At: time.Now(), State: "running", Rule: "name", Matched: "Name:", Sent: "demo⏎"}
	src.updates <- ask.Update{Kind: ask.UpdateClosed, State: "running", Question: &ask.Question{ID: "q2", Text: "Continue? [y/N]", Closed: &ask.Closed{How: ask.Answered, By: "alice", Channel: "dashboard", Sent: "y"}}}
	v = stream.untilView(t, func(v view) bool { return v.LastClosed != nil })
	if v.Session.Question != nil || v.Session.State != "running" || v.LastClosed.Closed.By != "alice" {
		t.Fatalf("after the answer: %+v", v)
	}
	want := []decision{
		{Kind: answerKind, Matched: "Continue? [y/N]", Sent: "y", By: "alice", Channel: "dashboard"},
		{Kind: ask.UpdateDecision, Rule: "name", Matched: "Name:", Sent: "demo⏎"},
	}
	for i := range v.Decisions {
		v.Decisions[i].At = time.Time{}
	}
	if !slices.Equal(v.Decisions, want) {
		t.Fatalf("decisions, newest first:\n got %+v\nwant %+v", v.Decisions, want)
	}
	// The end is told when it came, not when the state last changed.
	endedAt := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	src.updates <- ask.Update{Kind: ask.UpdateEnd, At: endedAt, State: "failed", Outcome: "failed", ExitCode: &one, Reason: "the program exited with 1"}
	v = stream.untilView(t, func(v view) bool { return v.Ended })
	if v.Outcome != "failed" || v.ExitCode == nil || *v.ExitCode != 1 || !v.EndedAt.Equal(endedAt) || v.EndReason != "the program exited with 1" {
		t.Fatalf("at the end: %+v", v)
	}
}

func TestTooManyPages(t *testing.T) {
	t.Parallel()
	s := newTestServer(newFakeSource())
	for range maxSubscribers {
		if _, _, ok := s.hub.subscribe(); !ok {
			t.Fatal("a page was refused before the limit")
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/events", nil)
	r.Host = "127.0.0.1:8123"
	r.Header.Set(tokenHeader, testToken)
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("%d, want 503", w.Code)
	}
	body, _ := io.ReadAll(w.Body)
	if !strings.Contains(string(body), "too many pages") {
		t.Fatalf("%s", body)
	}
}

// gone is a Source whose sessions are listed until they are gone.
type gone struct {
	*fakeSource
	mu   sync.Mutex
	none bool
}

func (g *gone) List(ctx context.Context) ([]ask.Session, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.none {
		return nil, nil
	}
	return g.fakeSource.List(ctx)
}

func TestASessionGoneWithoutItsEndIsShownEnded(t *testing.T) {
	t.Parallel()
	src := &gone{fakeSource: newFakeSource()}
	h := newHub(src, t.Logf)
	h.poll(t.Context())
	h.mu.Lock()
	v := h.views["s1"]
	if v == nil || !v.watching || v.Ended {
		t.Fatalf("after the first look: %+v", v)
	}
	h.mu.Unlock()
	src.mu.Lock()
	src.none = true
	src.mu.Unlock()
	h.poll(t.Context())
	h.mu.Lock()
	defer h.mu.Unlock()
	if !v.Ended || v.Outcome != "gone" || h.views["s1"] != v {
		t.Fatalf("after the session went: %+v", v)
	}
}

func TestEndedSessionsAreLetGo(t *testing.T) {
	t.Parallel()
	h := newHub(newFakeSource(), t.Logf)
	now := time.Now()
	for i := range maxEnded + 5 {
		id := "s" + strconv.Itoa(i)
		h.views[id] = &view{Session: ask.Session{ID: id}, Ended: true, EndedAt: now.Add(time.Duration(i) * time.Second)}
	}
	h.views["old"] = &view{Session: ask.Session{ID: "old"}, Ended: true, EndedAt: now.Add(-keepEnded - time.Second)}
	h.views["live"] = &view{Session: ask.Session{ID: "live"}}
	h.pruneLocked(now.Add(time.Minute))
	if len(h.views) != maxEnded+1 || h.views["live"] == nil || h.views["old"] != nil || h.views["s0"] != nil || h.views["s24"] == nil {
		t.Fatalf("%d views left", len(h.views))
	}
}

// pagesAtFetch is a fakeSource that notes how many pages watched at each
// screen it was asked for, and tells when its session is watched.
type pagesAtFetch struct {
	*fakeSource
	hub     *hub
	watched chan struct{}
	once    sync.Once
	mu      sync.Mutex
	pages   []int
}

func (p *pagesAtFetch) Screen(ctx context.Context, id string) (ask.Screen, error) {
	p.hub.mu.Lock()
	n := len(p.hub.subs)
	p.hub.mu.Unlock()
	p.mu.Lock()
	p.pages = append(p.pages, n)
	p.mu.Unlock()
	return p.fakeSource.Screen(ctx, id)
}

func (p *pagesAtFetch) Events(ctx context.Context, id string, fn func(ask.Update) bool) error {
	p.once.Do(func() { close(p.watched) })
	return p.fakeSource.Events(ctx, id, fn)
}

// TestScreensAreFetchedOnlyForPages: with no page open the dashboard asks a
// session with no question for its screen not once, however often it
// changes; a page that opens gets the screen as it is then.
func TestScreensAreFetchedOnlyForPages(t *testing.T) {
	t.Parallel()
	src := &pagesAtFetch{fakeSource: newFakeSource(), watched: make(chan struct{})}
	src.session.Question = nil
	src.updates = make(chan ask.Update) // each update taken in before the next is sent
	s := newTestServer(src)
	src.hub = s.hub
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Run(ctx)
	<-src.watched
	for range 3 {
		src.updates <- ask.Update{Kind: ask.UpdateScreen, State: "running"}
	}
	stream := openEvents(t, ctx, s)
	stream.untilView(t, func(v view) bool { return v.Screen.Hash == "h1" })
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.pages) == 0 || slices.Contains(src.pages, 0) {
		t.Fatalf("pages open at each screen fetched: %v, want none at 0", src.pages)
	}
}

// TestAQuestionsScreenIsFetchedWithNoPage: a session that asks has its
// screen fetched with no page open, so that a page that opens shows the
// question with the screen it was asked on, which an answer names.
func TestAQuestionsScreenIsFetchedWithNoPage(t *testing.T) {
	t.Parallel()
	src := &pagesAtFetch{fakeSource: newFakeSource(), watched: make(chan struct{})}
	src.session.Question = nil
	src.updates = make(chan ask.Update)
	s := newTestServer(src)
	src.hub = s.hub
	fetched := make(chan struct{}, 1)
	s.hub.fetched = func(string, error) { fetched <- struct{}{} }
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go s.Run(ctx)
	<-src.watched
	src.updates <- ask.Update{Kind: ask.UpdateQuestion, State: "prompting", Question: &ask.Question{ID: "q1", Text: "Continue? [y/N]", ScreenHash: "h1"}}
	// The question is taken in; its screen follows with no page open.
	select {
	case <-fetched:
	case <-time.After(30 * time.Second): // only catches a fetch that never comes
		t.Fatal("the question's screen was not fetched with no page open")
	}
	stream := openEvents(t, ctx, s)
	v := stream.untilView(t, func(v view) bool { return v.Session.Question != nil })
	if v.Screen.Hash != "h1" {
		t.Fatalf("the page's first view of the question has the screen %+v", v.Screen)
	}
}
