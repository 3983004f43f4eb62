//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
)

// Questions for the fake model's AskUserQuestion calls.
const (
	askColour   = `{"header":"Colour","question":"Which colour do you want?","multiSelect":false,"options":[{"label":"Red","description":"Warm and loud"},{"label":"Blue","description":"Calm and cool"}]}`
	askTools    = `{"header":"Tools","question":"Which tools should I set up?","multiSelect":true,"options":[{"label":"Lint","description":"golangci-lint"},{"label":"Format","description":"gofmt on save"},{"label":"Test","description":"go test in CI"}]}`
	askLicence  = `{"header":"Licence","question":"Which licence?","multiSelect":false,"options":[{"label":"MIT","description":"Short"},{"label":"Apache-2.0","description":"Patents"}]}`
	resultStart = "Your questions have been answered: "
)

// The claude-code preset against a real Claude Code whose model asks with
// AskUserQuestion: clai opens a question for each of the call's questions,
// with its header, options and descriptions, clai answer answers it from
// another process, and the tool_result Claude Code writes to its transcript
// and sends to the model names what was answered: one option, a text of the
// person's own ("Other"), several options of a multi-select question, and
// the questions of one call one after another.
func TestPresetAnswersClaudeCodesOwnQuestions(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Claude Code from npm; skipped with -short")
	}
	claude := installClaudeCode(t)
	fake := testprog.Build(t, "anthropic")
	clai := testprog.BuildCommand(t, "./cmd/clai")
	cases := []struct {
		name      string
		questions string
		answers   [][]string // clai answer's arguments, a list per question
		want      string     // the answers in the tool_result
	}{
		{"one option", "[" + askColour + "]", [][]string{{"--choose", "Blue"}},
			`"Which colour do you want?"="Blue"`},
		{"other", "[" + askColour + "]", [][]string{{"--", "Green, please"}},
			`"Which colour do you want?"="Green, please"`},
		{"multi-select, then one option", "[" + askTools + "," + askLicence + "]",
			[][]string{{"--choose", "Lint", "--choose", "Test"}, {"--choose", "apache-2.0"}},
			`"Which tools should I set up?"="Lint, Test", "Which licence?"="Apache-2.0"`},
		{"multi-select other", "[" + askTools + "]", [][]string{{"Vet"}},
			`"Which tools should I set up?"="Vet"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t)
			env, finished, served := startAskingRun(t, s, clai, claude, fake, c.questions)

			for i, args := range c.answers {
				var all []map[string]any
				if err := json.Unmarshal([]byte(c.questions), &all); err != nil {
					t.Fatal(err)
				}
				q := waitToolQuestion(t, env, all[i]["question"].(string), finished)
				if q.Header != all[i]["header"] || len(q.Options) != len(all[i]["options"].([]any)) ||
					q.Options[0].Description == "" || !q.Other || q.MultiSelect != all[i]["multiSelect"] {
					t.Fatalf("question %+v, asked %v", q, all[i])
				}
				stdout, stderr, code := env.clai(t, append([]string{"answer", "--question", q.ID}, args...)...)
				if code != 0 {
					t.Fatalf("clai answer %q: exit %d\n%s%s", args, code, stdout, stderr)
				}
			}
			fakeLog := finished().checkDone(t, served())
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

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// waitToolQuestion waits until the only session has an open question from
// Claude Code's question tool with the text; a generous deadline only
// catches a hang, or a run that ended.
func waitToolQuestion[T any](t *testing.T, env *sessionsEnv, text string, finished func() T) *ask.Question {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		list := env.sessions(t)
		if len(list) == 1 && list[0].Question != nil && list[0].Question.Reason == ask.Tool && list[0].Question.Text == text {
			return list[0].Question
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question %q; sessions: %+v; the run: %+v", text, list, finished())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// transcriptResult returns the text of the tool_result for the call id in
// the Claude Code transcripts under home.
func transcriptResult(t *testing.T, home, id string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			var l struct {
				Message struct {
					Content []struct {
						Type      string `json:"type"`
						ToolUseID string `json:"tool_use_id"`
						Content   string `json:"content"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(line), &l) != nil {
				continue
			}
			for _, b := range l.Message.Content {
				if b.Type == "tool_result" && b.ToolUseID == id {
					return b.Content
				}
			}
		}
	}
	t.Fatalf("no tool_result for %s in %s", id, files)
	return ""
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
	api, served := startFakeAPI(t, fake, []string{"-ask", `{"questions":` + questions + `}`, "-say", "SCRIPT-DONE"})
	done := make(chan askRun, 1)
	go func() {
		rep, err := s.run(t, env.bin, claude, api)
		done <- askRun{rep, err}
	}()
	finished := sync.OnceValue(func() askRun { return <-done })
	t.Cleanup(func() { finished() }) // the run ends by itself, at most at its deadline
	return env, finished, served
}
