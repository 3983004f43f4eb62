//go:build e2e

package humanloop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/agenttest"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/sessions"
)

// TestClaudeCodesOwnQuestionsAreAnswered: the claude-code preset run by
// humanloop.Run against a real Claude Code whose model asks with
// AskUserQuestion. Claude Code's question source opens a question for each
// of the call's questions, with its header, options and descriptions; an
// answer through the session's socket, as clai answer sends it, answers it;
// and the tool_result Claude Code writes to its transcript and sends to the
// model names what was answered: one option, a text of the person's own
// ("Other"), several options of a multi-select question, and the questions
// of one call one after another.
func TestClaudeCodesOwnQuestionsAreAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Claude Code from npm; skipped with -short")
	}
	claude := agenttest.InstallClaudeCode(t)
	fake := testprog.Build(t, "anthropic")
	text := func(s string) ask.Answer { return ask.Answer{Text: &s} }
	cases := []struct {
		name      string
		questions string
		answers   []ask.Answer // one per question, its question left to fill
		want      string       // the answers in the tool_result
	}{
		{"one option", "[" + agenttest.AskColour + "]", []ask.Answer{{Choose: "Blue"}},
			`"Which colour do you want?"="Blue"`},
		{"other", "[" + agenttest.AskColour + "]", []ask.Answer{text("Green, please")},
			`"Which colour do you want?"="Green, please"`},
		{"multi-select, then one option", "[" + agenttest.AskTools + "," + agenttest.AskLicence + "]",
			[]ask.Answer{{Choices: []string{"Lint", "Test"}}, {Choose: "apache-2.0"}},
			`"Which tools should I set up?"="Lint, Test", "Which licence?"="Apache-2.0"`},
		{"multi-select other", "[" + agenttest.AskTools + "]", []ask.Answer{text("Vet")},
			`"Which tools should I set up?"="Vet"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var asked []map[string]any
			if err := json.Unmarshal([]byte(c.questions), &asked); err != nil {
				t.Fatal(err)
			}
			root, err := os.MkdirTemp("", "clai-cc-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(root) })
			home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
			for _, dir := range []string{home, proj} {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			api, served := agenttest.StartFakeAPI(t, fake, []string{"-ask", `{"questions":` + c.questions + `}`, "-say", "SCRIPT-DONE"})
			// The preset, and leaving with /exit once the fake model said
			// its last word, as a person at the keyboard would.
			pb := parsePlaybook(t, "version: 1\nname: claude-code-e2e\nextends: claude-code\nspawn: {command: [claude], dir: %q}\n"+
				"rules:\n  - {name: exit-when-done, match: SCRIPT-DONE, line: /exit, limit: 1}\n", proj)
			r := isolate(t).startRun(t, pb, humanloop.Options{
				Environ: agenttest.ClaudeCodeEnv(home, claude, api), Headless: true, Quiet: true,
				Command: []string{"claude", "run the tests"},
				Runner:  []runner.Option{runner.WithArgs([]string{"run the tests"})},
			})

			for i, a := range c.answers {
				question := asked[i]["question"].(string)
				s, socket := r.waitFor(t, "question "+question, func(q *ask.Question) bool { return q.Reason == ask.Tool && q.Text == question })
				q := s.Question
				if q.Header != asked[i]["header"] || len(q.Options) != len(asked[i]["options"].([]any)) ||
					q.Options[0].Description == "" || !q.Other || q.MultiSelect != asked[i]["multiSelect"] {
					t.Fatalf("question %+v, asked %v", q, asked[i])
				}
				a.Question, a.By, a.Channel = q.ID, "tester", ask.ChannelCLI
				if _, err := sessions.NewClient(socket).Answer(t.Context(), a); err != nil {
					t.Fatalf("the answer %+v: %v", a, err)
				}
			}
			rep, err := r.wait(t)
			fakeLog := served()
			if err != nil || rep.Outcome != "done" || rep.ExitCode != 0 {
				t.Fatalf("the run: %v, %+v\nfake API:%s", err, rep, fakeLog)
			}
			agenttest.CheckToolDialogAskedOnce(t, rep.Questions)
			reasons := make([]string, len(rep.Timeline))
			for i, e := range rep.Timeline {
				reasons[i] = e.Reason
			}
			agenttest.CheckTypedOnSight(t, reasons)
			want := agenttest.ResultStart + c.want + "."
			if !strings.Contains(fakeLog, "result toolu_fake01 ok "+agenttest.Quote(want+" You can now continue with these answers in mind.")) {
				t.Errorf("the model was not told %s:\n%s", want, fakeLog)
			}
			if got := agenttest.TranscriptResult(t, home, "toolu_fake01"); !strings.HasPrefix(got, want) {
				t.Errorf("the transcript's tool_result is %q, want %q…", got, want)
			}
		})
	}
}
