package dashboard

import (
	"context"
	"net"
	"net/http/httptest"
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

// TestPageShowsARefusal: in a headless Chromium, a click on an option that
// the session refuses leaves the question open and shows the refusal's
// code and reason under it.
func TestPageShowsARefusal(t *testing.T) {
	t.Parallel()
	path := testprog.RequireProgram(t, "chromium", "chromium")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s := New(refusing{newFakeSource()}, Config{Token: testToken, Port: port, User: "alice"})
	go s.Run(t.Context())
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener = ln
	ts.Start()
	defer ts.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// A generous deadline only catches a hang.
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	const option = `.question.open button.option[data-label="y"]:not([disabled])`
	err = chromedp.Do(ctx,
		chromedp.Navigate("http://127.0.0.1:"+strconv.Itoa(port)+"/?token="+testToken),
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
