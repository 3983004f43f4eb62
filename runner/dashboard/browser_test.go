//go:build e2e

package dashboard

import (
	"context"
	"net"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
)

// refusing is a session that refuses every answer as given on a screen it
// no longer shows.
type refusing struct{ *fakeSource }

func (refusing) Answer(context.Context, string, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedStale, Reason: "the screen changed since the answer was given"}
}

// page serves a dashboard of src and opens it, by its token, in a headless
// Chromium; it returns the browser's context.
func page(t *testing.T, src Source) context.Context {
	t.Helper()
	path := testprog.RequireProgram(t, "chromium", "chromium")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s := New(src, Config{Token: testToken, Port: port, User: "alice"})
	go s.Run(t.Context())
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// A generous deadline only catches a hang.
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Do(ctx, chromedp.Navigate("http://127.0.0.1:"+strconv.Itoa(port)+"/?token="+testToken)); err != nil {
		t.Fatalf("the page does not open: %v", err)
	}
	return ctx
}

// TestPageShowsARefusal: in a headless Chromium, a click on an option that
// the session refuses leaves the question open and shows the refusal's
// code and reason under it.
func TestPageShowsARefusal(t *testing.T) {
	t.Parallel()
	ctx := page(t, refusing{newFakeSource()})
	const option = `.question.open button.option[data-label="y"]:not([disabled])`
	err := chromedp.Do(ctx,
		chromedp.WaitVisible(option),
		chromedp.Click(option),
		chromedp.WaitVisible(`.question.open .result.refused`),
	)
	if err != nil {
		t.Fatalf("the page shows no refusal: %v", err)
	}
	got, err := chromedp.Run(ctx, chromedp.Text(`.question.open .result.refused`))
	if err != nil {
		t.Fatal(err)
	}
	if got != "Refused (stale): the screen changed since the answer was given" {
		t.Fatalf("the page shows %q", got)
	}
	if still, err := chromedp.Run(ctx, chromedp.Text(`.question.open .qtext`)); err != nil || !strings.Contains(still, "Continue?") {
		t.Fatalf("the question is no longer shown: %q, %v", still, err)
	}
}

// Texts a model wrote, meant to run in the page if it were put there as
// HTML.
const (
	hostileHeader = `<img src=x onerror="window.injected=1">Tools`
	hostileLabel  = `"><script>window.injected=2</script>Format`
	hostileDesc   = `<b onmouseover="window.injected=3">gofmt</b> on save`
)

// toolQuestion is a multi-select question of a program's question tool whose
// header, labels and descriptions carry HTML.
func toolQuestion() *ask.Question {
	return &ask.Question{ID: "q1", Session: "s1", Reason: ask.Tool, Header: hostileHeader, Text: "Which tools should I set up?",
		Options: []ask.Option{
			{Label: "Lint", Description: "golangci-lint"},
			{Label: hostileLabel, Description: hostileDesc},
			{Label: "Test", Description: "go test in CI"},
		},
		MultiSelect: true, Other: true, ScreenHash: "h1"}
}

// TestPageAnswersSeveralOptions: in a headless Chromium, a question that
// takes several options shows a check box per option, with its description,
// its header, and a field for a text of one's own; Submit waits for a tick,
// and answers with the options ticked, in their order. What the model wrote
// is shown as text, never run.
func TestPageAnswersSeveralOptions(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	src.session.Question = toolQuestion()
	ctx := page(t, src)

	const form = `.question.open form.multi`
	err := chromedp.Do(ctx,
		chromedp.WaitVisible(form+` input[type=checkbox][data-label="Test"]:not([disabled])`),
		chromedp.WaitVisible(form+` button.submit-choices[disabled]`),
	)
	if err != nil {
		t.Fatalf("the page shows no check boxes, or Submit without a tick: %v", err)
	}
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".question.open .qheader, .question.open label.choice, .question.open .other-label")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{hostileHeader, "Lintgolangci-lint", hostileLabel + hostileDesc, "Testgo test in CI", "Other:"}
	if !slices.Equal(texts, want) {
		t.Errorf("the page shows %q, want %q", texts, want)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(form+` label.choice:nth-of-type(3) input`),
		chromedp.Click(form+` label.choice:nth-of-type(2) input`),
		chromedp.Click(form+` button.submit-choices:not([disabled])`),
		chromedp.WaitVisible(`.question .result.ok`),
	)
	if err != nil {
		t.Fatalf("the page does not answer with the options ticked: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(`.question .result.ok`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Sent: choose " + strconv.Quote(hostileLabel) + `, "Test"`; shown != want {
		t.Errorf("the page shows %q, want %q", shown, want)
	}
	src.mu.Lock()
	answers := slices.Clone(src.answers)
	src.mu.Unlock()
	if len(answers) != 1 || !slices.Equal(answers[0].Choices, []string{hostileLabel, "Test"}) || answers[0].Choose != "" || answers[0].ScreenHash != "h1" {
		t.Fatalf("the session got %+v", answers)
	}
	injected, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.injected !== undefined || document.querySelector("#sessions img, #sessions script, #sessions b") !== null`))
	if err != nil || injected {
		t.Fatalf("the model's text was put in the page as HTML: %v, %v", injected, err)
	}
}

// twoSessions is a Source of two sessions, each a fakeSource, whose open
// questions have the same id, as the questions of two runs may.
type twoSessions struct{ a, b *fakeSource }

func newTwoSessions() twoSessions {
	b := newFakeSource()
	b.session.ID, b.session.Name = "s2", "build"
	return twoSessions{newFakeSource(), b}
}

func (s twoSessions) of(id string) *fakeSource {
	if id == s.b.session.ID {
		return s.b
	}
	return s.a
}

func (s twoSessions) List(ctx context.Context) ([]ask.Session, error) {
	a, _ := s.a.List(ctx)
	b, _ := s.b.List(ctx)
	return append(a, b...), nil
}

func (s twoSessions) Screen(ctx context.Context, id string) (ask.Screen, error) {
	return s.of(id).Screen(ctx, id)
}

func (s twoSessions) Events(ctx context.Context, id string, fn func(ask.Update) bool) error {
	return s.of(id).Events(ctx, id, fn)
}

func (s twoSessions) Answer(ctx context.Context, id string, a ask.Answer) (ask.Sent, error) {
	return s.of(id).Answer(ctx, id, a)
}

// TestAResultShowsUnderItsOwnSession: what an answer from the page got is
// shown under its session's question only, not under another session's
// question of the same id.
func TestAResultShowsUnderItsOwnSession(t *testing.T) {
	t.Parallel()
	src := newTwoSessions()
	ctx := page(t, src)
	const first, second = `article.card[data-session="s1"]`, `article.card[data-session="s2"]`
	err := chromedp.Do(ctx,
		chromedp.WaitVisible(second+` .question.open button.option[data-label="N"]:not([disabled])`),
		chromedp.Click(first+` .question.open button.option[data-label="y"]:not([disabled])`),
		chromedp.WaitVisible(first+` .result.ok`),
	)
	if err != nil {
		t.Fatalf("the first session's answer: %v", err)
	}
	// The second session's card is drawn again, its question still open.
	// Its listing says so too, as a real session's does: the hub lists the
	// sessions every second and would draw the card back as it was.
	src.b.mu.Lock()
	src.b.session.State = "manual"
	src.b.mu.Unlock()
	src.b.updates <- ask.Update{Kind: ask.UpdateState, State: "manual", At: time.Now()}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(second+` .badge.s-manual`)); err != nil {
		t.Fatalf("the second session's card is not redrawn: %v", err)
	}
	results, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('article.card[data-session="s2"] .result').length`))
	if err != nil || results != 0 {
		t.Fatalf("the second session's question shows %d results of answers (%v), want none", results, err)
	}
}
