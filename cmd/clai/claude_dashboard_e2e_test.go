//go:build e2e

package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

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
	claude := installClaudeCode(t)
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
			questions: "[" + askColour + "]",
			answers: []chromedp.Action[chromedp.Void]{chromedp.Steps(
				chromedp.WaitVisible(open+` button.option[data-label="Blue"]:not([disabled])`),
				chromedp.Click(open+` button.option[data-label="Blue"]`),
			)},
			shown: []string{"Colour", "RedWarm and loud", "BlueCalm and cool", "Other:"},
			want:  `"Which colour do you want?"="Blue"`,
		},
		{
			name:      "multi-select, then other",
			questions: "[" + askTools + "," + askLicence + "]",
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
			want := resultStart + c.want + "."
			if !strings.Contains(fakeLog, "result toolu_fake01 ok "+strconvQuote(want+" You can now continue with these answers in mind.")) {
				t.Errorf("the model was not told %s:\n%s", want, fakeLog)
			}
			if got := transcriptResult(t, s.home, "toolu_fake01"); !strings.HasPrefix(got, want) {
				t.Errorf("the transcript's tool_result is %q, want %q…", got, want)
			}
		})
	}
}
