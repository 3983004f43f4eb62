//go:build e2e

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clai-sh/clai/internal/testprog"
)

// dashboardPlaybook writes a playbook whose program asks three questions,
// in colour: a person answers the first and the last, a rule the second.
func dashboardPlaybook(t *testing.T, dir string) string {
	t.Helper()
	prompter := testprog.Build(t, "prompter")
	pb := fmt.Sprintf(`version: 1
name: deploy
spawn:
  command: [%q, "-q", "\e[1;32m?\e[0m Project name: ", "-q", "\e[1;32m?\e[0m Run the tests first? [y/n] ", "-q", "\e[1;33m!\e[0m Deploy \e[1mdemo\e[0m where? [staging/prod] "]
settings:
  match: screen
timeouts:
  prompt: 120s
  total: 300s
rules:
  - name: tests-first
    match: "Run the tests first?"
    line: "y"
`, prompter)
	path := filepath.Join(dir, "deploy.yaml")
	if err := os.WriteFile(path, []byte(pb), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// browser is a headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := testprog.RequireProgram(t, "chromium", "chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.WindowSize(1360, 860),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// A generous deadline only catches a hang.
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTimeout)
	return ctx
}

// TestDashboardAnswersFromTheBrowser: a real clai run reaches a question;
// the dashboard's page in a headless Chromium shows it with the screen in
// colour and the rule's decision; a click on an option answers it, the
// program gets exactly that, and the page shows the question answered and
// the run done.
func TestDashboardAnswersFromTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	e := newSessionsEnv(t)
	pb := dashboardPlaybook(t, e.dir)
	_, out, exited := e.start(t, "run", "--remote", pb)
	url := e.startDashboard(t)

	const card = `article.card[data-session]`
	const field = card + ` .question.open form.free input`
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(card+` .question.open form.free button:not([disabled])`)); err != nil {
		t.Fatalf("the page shows no question: %v\nclai run:\n%s", err, out)
	}
	if text := read(t, ctx, chromedp.Text(card+` .qtext`)); !strings.Contains(text, "Project name:") {
		t.Fatalf("the first question on the page: %q", text)
	}
	// The person types the project's name; a rule answers the next
	// question, and the third waits for the person.
	const option = card + ` .question.open button.option[data-label="prod"]:not([disabled])`
	if err := chromedp.Do(ctx, chromedp.SendKeys(field, "demo\r"), chromedp.WaitVisible(option)); err != nil {
		t.Fatalf("the page shows no question with the option prod: %v\nclai run:\n%s", err, out)
	}
	text := read(t, ctx, chromedp.Text(card+` .qtext`))
	if !strings.Contains(text, "Deploy demo where? [staging/prod]") {
		t.Errorf("the question on the page: %q", text)
	}
	screenHTML := read(t, ctx, chromedp.InnerHTML(card+` pre.screen`))
	if !strings.Contains(screenHTML, `<span class="f3 bo">!</span>`) || !strings.Contains(screenHTML, `<span class="bo">demo</span>`) {
		t.Errorf("the screen lost its colours: %s", screenHTML)
	}
	decisions := read(t, ctx, chromedp.Text(card+` table.decisions`))
	if !strings.Contains(decisions, "tests-first") || !strings.Contains(decisions, "Run the tests first?") {
		t.Errorf("the decisions on the page: %q", decisions)
	}
	if loc := read(t, ctx, chromedp.Location()); strings.Contains(loc, "token") {
		t.Errorf("the page's address keeps the token: %q", loc)
	}
	screenshot(t, ctx, "question")

	err := chromedp.Do(ctx,
		chromedp.Click(option),
		chromedp.WaitVisible(card+` .closed-line[data-how="answered"]`),
		chromedp.WaitVisible(card+` .badge.o-done`),
	)
	if err != nil {
		t.Fatalf("the page does not show the question answered and the run done: %v\nclai run:\n%s", err, out)
	}
	closed := read(t, ctx, chromedp.Text(card+` .question`))
	state := read(t, ctx, chromedp.Text(card+` .badge.state`))
	waitRunEnd(t, exited, out)
	if got := out.String(); !strings.Contains(got, "got: demo\r\n") || !strings.Contains(got, "got: y\r\n") || !strings.Contains(got, "got: prod\r\n") || strings.Count(got, "got: ") != 3 {
		t.Fatalf("the program got:\n%s", got)
	}
	if !strings.Contains(closed, "through dashboard") || !strings.Contains(closed, `prod`) || !strings.Contains(closed, "Sent:") {
		t.Errorf("the closed question on the page: %q", closed)
	}
	if state = strings.ToLower(state); !strings.Contains(state, "done") || !strings.Contains(state, "exit 0") {
		t.Errorf("the run's state on the page: %q", state)
	}
	screenshot(t, ctx, "answered")
}

// TestDashboardShowsLearnedAnswer: after a person answered the same
// questions in two runs, the third run's question shows the answer people
// gave in the dashboard, in a headless Chromium, as the first button; a
// click on it answers the question.
func TestDashboardShowsLearnedAnswer(t *testing.T) {
	t.Parallel()
	ctx := browser(t)
	e := newSessionsEnv(t)
	suggest := "suggest: {sources: [answers]}\n"
	for run := 1; run <= 2; run++ {
		e.answerRun(t, learnsPlaybook(t, e.dir, run, suggest))
	}
	_, out, exited := e.start(t, "run", "--remote", learnsPlaybook(t, e.dir, 3, suggest))
	url := e.startDashboard(t)

	const card = `article.card[data-session]`
	const first = card + ` .question.open .suggestions button.suggestion:first-of-type`
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(first+`[data-text="yes"]:not([disabled])`)); err != nil {
		t.Fatalf("the page shows no learned answer: %v\nclai run:\n%s", err, out)
	}
	if text := read(t, ctx, chromedp.Text(card+` .question.open .suggestions`)); !strings.Contains(text, "yes") || !strings.Contains(text, "100%") {
		t.Errorf("the suggestions on the page: %q", text)
	}
	screenshot(t, ctx, "learned")
	if err := chromedp.Do(ctx, chromedp.Click(first)); err != nil {
		t.Fatal(err)
	}
	e.waitQuestion(t, "q2", exited, out)
	e.mustAnswer(t, "--", "pw")
	const spring = first + `[data-text="spring"]:not([disabled])`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(spring), chromedp.Click(spring)); err != nil {
		t.Fatalf("the page shows no learned release name: %v\nclai run:\n%s", err, out)
	}
	waitRunEnd(t, exited, out)
	if got := out.String(); !strings.Contains(got, "got: yes\r\n") || !strings.Contains(got, "got: spring\r\n") {
		t.Fatalf("the program got:\n%s", got)
	}
}

// read runs a in the browser and returns what it read.
func read[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("the page: %v", err)
	}
	return v
}

// screenshot writes a picture of the page to a temporary file, or to the
// folder CLAI_DASHBOARD_SCREENSHOTS names, and logs where.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("CLAI_DASHBOARD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "dashboard-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the page: %s", path)
}
