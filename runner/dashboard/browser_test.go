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
