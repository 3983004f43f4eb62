//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/clai-sh/clai/internal/agenttest"
	"github.com/clai-sh/clai/internal/testprog"
)

// The claude-code preset against a real Claude Code whose model asks with
// AskUserQuestion, answered from the dashboard in a headless Chromium: the
// page shows the question with its header and each option's description; a
// click on an option's button, the check boxes of a multi-select question
// and Submit, or a text of one's own in the "Other:" field answer it, and the
// tool_result Claude Code writes to its transcript and sends to the model
// names what the page chose.
func TestDashboardAnswersClaudeCodesOwnQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Claude Code from npm; skipped with -short")
	}
	claude := agenttest.InstallClaudeCode(t)
	fake := testprog.Build(t, "anthropic")
	clai := testprog.BuildCommand(t, "./cmd/clai")
	const card = `article.card[data-session]`
	const open = card + ` .question.open`
	cases := []struct {
		name      string
		questions string
		// answers are what a person does on the page, one a question: each
		// waits for its question, then answers it.
		answers []chromedp.Action[chromedp.Void]
		// shown is the page's text of the first question: its header and
		// its options' labels and descriptions.
		shown []string
		want  string // the answers in the tool_result
	}{
		{
			name:      "one option",
			questions: "[" + agenttest.AskColour + "]",
			answers: []chromedp.Action[chromedp.Void]{chromedp.Steps(
				chromedp.WaitVisible(open+` button.option[data-label="Blue"]:not([disabled])`),
				chromedp.Click(open+` button.option[data-label="Blue"]`),
			)},
			shown: []string{"Colour", "RedWarm and loud", "BlueCalm and cool", "Other:"},
			want:  `"Which colour do you want?"="Blue"`,
		},
		{
			name:      "multi-select, then other",
			questions: "[" + agenttest.AskTools + "," + agenttest.AskLicence + "]",
			answers: []chromedp.Action[chromedp.Void]{chromedp.Steps(
				chromedp.WaitVisible(open+` form.multi input[data-label="Test"]:not([disabled])`),
				chromedp.Click(open+` form.multi input[data-label="Lint"]`),
				chromedp.Click(open+` form.multi input[data-label="Test"]`),
				chromedp.Click(open+` form.multi button.submit-choices:not([disabled])`),
			), chromedp.Steps(
				chromedp.WaitVisible(open+` button.option[data-label="MIT"]:not([disabled])`),
				chromedp.SendKeys(open+` form.free input`, "GPL-3.0\r"),
			)},
			shown: []string{"Tools", "Lintgolangci-lint", "Formatgofmt on save", "Testgo test in CI", "Other:"},
			want:  `"Which tools should I set up?"="Lint, Test", "Which licence?"="GPL-3.0"`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t)
			ctx := browser(t)
			env, finished, served := startAskingRun(t, s, clai, claude, fake, c.questions)
			url := env.startDashboard(t)

			if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(open+` .qheader`)); err != nil {
				t.Fatalf("the page shows no question: %v; the run: %+v", err, finished())
			}
			shown := read(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".question.open .qheader, .question.open .option, .question.open label.choice, .question.open .other-label")].map(e => e.textContent)`))
			if strings.Join(shown, "|") != strings.Join(c.shown, "|") {
				t.Errorf("the page shows %q, want %q", shown, c.shown)
			}
			name := "claude-" + strings.NewReplacer(" ", "-", ",", "").Replace(c.name)
			screenshot(t, ctx, name+"-question")
			for i, a := range c.answers {
				if err := chromedp.Do(ctx, a); err != nil {
					t.Fatalf("answer %d on the page: %v; the run: %+v", i+1, err, finished())
				}
			}
			fakeLog := finished().checkDone(t, served())
			// The page keeps the ended run, with the answers among its
			// decisions: each question, who answered it and through what.
			if err := chromedp.Do(ctx, chromedp.WaitVisible(`article.card.ended table.decisions tr.answer`)); err != nil {
				t.Fatalf("the page does not show the run ended with its answers: %v", err)
			}
			answers := read(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.decisions tr.answer")].map(e => e.textContent)`))
			if len(answers) != len(c.answers) {
				t.Errorf("the page shows the answers %q, want %d", answers, len(c.answers))
			}
			for _, a := range answers {
				if !strings.Contains(a, "· dashboard") || !strings.Contains(a, "Which ") {
					t.Errorf("the page shows the answer %q, want its question, through dashboard", a)
				}
			}
			screenshot(t, ctx, name+"-answered")
			want := agenttest.ResultStart + c.want + "."
			if !strings.Contains(fakeLog, "result toolu_fake01 ok "+agenttest.Quote(want+" You can now continue with these answers in mind.")) {
				t.Errorf("the model was not told %s:\n%s", want, fakeLog)
			}
			if got := agenttest.TranscriptResult(t, s.home, "toolu_fake01"); !strings.HasPrefix(got, want) {
				t.Errorf("the transcript's tool_result is %q, want %q…", got, want)
			}
		})
	}
}

// askRun is how a run of the e2e playbook ended.
type askRun struct {
	rep *e2eReport
	err error
}

// checkDone fails t unless the run ended done, with exit 0, asking each
// question of Claude Code's dialog once and typing every answer it was
// given; fakeLog, which it returns, is what the fake API served.
func (r askRun) checkDone(t *testing.T, fakeLog string) string {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%v\nfake API:\n%s", r.err, fakeLog)
	}
	if r.rep.Outcome != "done" || r.rep.ExitCode != 0 {
		t.Errorf("outcome %q, exit %d (%s), want done, 0", r.rep.Outcome, r.rep.ExitCode, r.rep.Reason)
	}
	r.rep.checkToolDialogAskedOnce(t)
	r.rep.checkTypedOnSight(t)
	return fakeLog
}

// startAskingRun starts clai on Claude Code in s, with a sessions folder of
// its own, against the fake Messages API asking questions (a JSON array of
// AskUserQuestion's questions) and then saying SCRIPT-DONE. It returns the
// sessions' environment, a function that waits for the run's end, and one
// that stops the fake API and returns its log.
func startAskingRun(t *testing.T, s *session, clai, claude, fake, questions string) (*sessionsEnv, func() askRun, func() string) {
	t.Helper()
	// A short sessions folder: a socket's path is at most 107 bytes.
	env := &sessionsEnv{bin: clai, runtime: filepath.Join(s.root, "rt")}
	if err := os.Mkdir(env.runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	env.env = append(os.Environ(), "XDG_RUNTIME_DIR="+env.runtime)
	s.env = []string{"XDG_RUNTIME_DIR=" + env.runtime}
	api, served := agenttest.StartFakeAPI(t, fake, []string{"-ask", `{"questions":` + questions + `}`, "-say", "SCRIPT-DONE"})
	done := make(chan askRun, 1)
	go func() {
		rep, err := s.run(t, env.bin, claude, api)
		done <- askRun{rep, err}
	}()
	finished := sync.OnceValue(func() askRun { return <-done })
	t.Cleanup(func() { finished() }) // the run ends by itself, at most at its deadline
	return env, finished, served
}
