package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/answerer/answerertest"
	"github.com/clai-sh/clai/runner/report"
)

// answererPlaybook asks an obvious question, then one a danger rule hands
// over; its answerer is the model given.
const answererPlaybook = `
version: 1
name: answerer-e2e
spawn: {command: [%q, -q, "Continue? [Y/n] ", -q, "About to run: rm -rf build. Proceed? [y/N] "]}
settings: {settle: 100ms}
timeouts: {prompt: 2s}
danger:
  - name: wipe
    match: {regex: 'rm\s+-rf'}
    action: manual
answerer:
%s
`

// alwaysYes is what the fake models say to every question: yes, at
// confidence 1.
const alwaysYes = `{"answer": "y", "confidence": 1.0, "reason": "the user wants this done"}`

// A real clai run over a fake program with a fake model that says yes to
// everything at confidence 1 (a command, and loopback fakes of the
// Anthropic Messages API and an OpenAI-compatible chat-completions API):
// Continue? [Y/n] is answered (the option Y is typed), the rm -rf prompt is
// not (it waits for people until timeouts.prompt, exit 4), each decision is
// in the log with the model, its confidence and its reason, the report
// names the model as who answered and lists the decisions (its HTML too),
// and the API's key shows nowhere.
func TestRunAnswererTakesTheEasyOne(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	prompter := testprog.Build(t, "prompter")
	const key = "sk-e2e-secret-key"
	anthropic := answerertest.Start(t, &answerertest.API{Kind: "anthropic", Key: key, Reply: alwaysYes})
	openai := answerertest.Start(t, &answerertest.API{Kind: "openai", Key: key, Reply: alwaysYes})
	model := filepath.Join(t.TempDir(), "model")
	if err := os.WriteFile(model, []byte("#!/bin/sh\ncat > /dev/null\necho '"+alwaysYes+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, spec := range map[string]string{
		"command":   fmt.Sprintf("  command: [%q]", model),
		"anthropic": fmt.Sprintf("  api: anthropic\n  url: %q\n  model: %s\n  key: env:E2E_MODEL_KEY", anthropic, answerertest.Model),
		"openai":    fmt.Sprintf("  api: openai\n  url: %q\n  model: %s\n  key: env:E2E_MODEL_KEY", openai, answerertest.Model),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pb := filepath.Join(dir, "answerer.yaml")
			if err := os.WriteFile(pb, fmt.Appendf(nil, answererPlaybook, prompter, spec), 0o644); err != nil {
				t.Fatal(err)
			}
			logFile, rep, page := filepath.Join(dir, "run.log"), filepath.Join(dir, "run.json"), filepath.Join(dir, "run.html")
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, "run", "--log", logFile, "--report", rep, "--report", page, pb)
			cmd.Env = append(os.Environ(), "E2E_MODEL_KEY="+key, "XDG_CONFIG_HOME="+dir)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 4 {
				t.Errorf("exit %d (%v), want 4: the rm -rf prompt waits for people\nstderr:\n%s", code, err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "got: Y") || strings.Contains(stdout.String(), "got: y") {
				t.Errorf("stdout, want Continue answered with Y and rm -rf not answered:\n%s", stdout.String())
			}
			logData, _ := os.ReadFile(logFile)
			decisions := answererLines(t, logData)
			if len(decisions) != 2 || decisions[0]["decision"] != answerer.Answered || decisions[1]["decision"] != answerer.Declined ||
				decisions[0]["confidence"] != "1" || decisions[0]["reason"] != "the user wants this done" ||
				!strings.Contains(fmt.Sprint(decisions[1]["why"]), "hand-over (danger)") {
				t.Errorf("the answerer's log lines: %v", decisions)
			}
			var r report.Report
			data, _ := os.ReadFile(rep)
			if err := json.Unmarshal(data, &r); err != nil || len(r.Questions) != 2 || r.Questions[0].Closed == nil ||
				r.Questions[0].Closed.Channel != "answerer" || !strings.Contains(r.Questions[0].Closed.By, "(confidence 1): the user wants this done") ||
				len(r.Answerer) != 2 || r.Answerer[0].Decision != answerer.Answered || r.Answerer[1].Decision != answerer.Declined ||
				r.Answerer[0].Confidence == nil || *r.Answerer[0].Confidence != 1 || r.Answerer[0].Reason != "the user wants this done" ||
				!strings.Contains(r.Answerer[1].Why, "hand-over (danger)") {
				t.Errorf("the report's questions (%v):\n%s", err, data)
			}
			html, _ := os.ReadFile(page)
			if !bytes.Contains(html, []byte("<h2>Answerer</h2>")) || !bytes.Contains(html, []byte("<td>the user wants this done</td>")) {
				t.Errorf("the HTML report has no answerer's decisions:\n%s", html)
			}
			for what, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "the log": string(logData),
				"the report": string(data), "the HTML report": string(html)} {
				if strings.Contains(text, key) {
					t.Errorf("%s holds the key", what)
				}
			}
		})
	}
}

// --dry-run says what the answerer would answer, and types nothing.
func TestRunAnswererDryRun(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	prompter := testprog.Build(t, "prompter")
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	if err := os.WriteFile(model, []byte("#!/bin/sh\ncat > /dev/null\necho '"+alwaysYes+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(dir, "answerer.yaml")
	if err := os.WriteFile(pb, fmt.Appendf(nil, answererPlaybook, prompter, fmt.Sprintf("  command: [%q]", model)), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--dry-run", "--log", filepath.Join(dir, "run.log"), pb)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if !strings.Contains(stderr.String(), `the answerer would answer q1 "Continue? [Y/n]" with the option "Y"`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if strings.Contains(stdout.String(), "got: ") {
		t.Errorf("a dry run typed an answer:\n%s", stdout.String())
	}
}

// answererLines returns the answerer's lines of an event log.
func answererLines(t *testing.T, log []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(log, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["event"] == answerer.LogEvent {
			out = append(out, m)
		}
	}
	return out
}

// With summarize: true and a notification target, the question the
// answerer takes is told to nobody, and the danger hand-over it leaves to
// people is told with the model's one-line summary.
func TestRunAnswererSummarizesForNotifications(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	prompter := testprog.Build(t, "prompter")
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	reply := `{"answer": "y", "confidence": 1, "reason": "fine", "summary": "the installer wants to go on"}`
	if err := os.WriteFile(model, []byte("#!/bin/sh\ncat > /dev/null\necho '"+reply+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	told := filepath.Join(dir, "told")
	if err := os.Mkdir(told, 0o700); err != nil {
		t.Fatal(err)
	}
	spec := fmt.Sprintf("  command: [%q]\n  summarize: true\nnotify:\n  - command: [sh, -c, 'cat > \"$0/$$.json\"', %q]\n    on: [question, danger]", model, told)
	pb := filepath.Join(dir, "answerer.yaml")
	if err := os.WriteFile(pb, fmt.Appendf(nil, answererPlaybook, prompter, spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--log", filepath.Join(dir, "run.log"), pb)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if !strings.Contains(stdout.String(), "got: Y") {
		t.Errorf("Continue was not answered:\n%s\n%s", stdout.String(), stderr.String())
	}
	type toldJSON struct {
		Event    string `json:"event"`
		Text     string `json:"text"`
		Question struct {
			ID      string `json:"id"`
			Reason  string `json:"reason"`
			Summary string `json:"summary"`
		} `json:"question"`
	}
	files, _ := filepath.Glob(filepath.Join(told, "*.json"))
	var asked, closed []toldJSON
	var data []byte
	for _, f := range files {
		var n toldJSON
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatalf("%v:\n%s", err, b)
		}
		if n.Event == "closed" {
			closed = append(closed, n)
		} else {
			asked, data = append(asked, n), b
		}
	}
	if len(asked) != 1 {
		t.Fatalf("%d notifications, want 1 (the hand-over; the question answered is told to nobody)\n%s", len(asked), stderr.String())
	}
	n := asked[0]
	if n.Text != "the installer wants to go on" || n.Question.Summary != n.Text || n.Question.Reason != "danger" {
		t.Errorf("the notification:\n%s", data)
	}
	// Only the close of the question told of may follow.
	for _, c := range closed {
		if c.Question.ID != n.Question.ID {
			t.Errorf("the close of %s, which was told to nobody", c.Question.ID)
		}
	}
}

// A model that hangs, and one that replies garbage, leave the question to
// people: nothing is typed, the run waits for an answer until
// timeouts.prompt, and the log says why.
func TestRunAnswererThatFailsLeavesItToPeople(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	prompter := testprog.Build(t, "prompter")
	for name, tc := range map[string]struct{ body, why string }{
		"hangs":   {"sleep 600 & sleep 600", "the model gave no reply within 300ms"},
		"garbage": {"cat > /dev/null; echo 'Sure! The answer is yes.'", "no JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			model := filepath.Join(dir, "model")
			if err := os.WriteFile(model, []byte("#!/bin/sh\n"+tc.body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			pb := filepath.Join(dir, "answerer.yaml")
			spec := fmt.Sprintf("  command: [%q]\n  timeout: 300ms", model)
			if err := os.WriteFile(pb, fmt.Appendf(nil, answererPlaybook, prompter, spec), 0o644); err != nil {
				t.Fatal(err)
			}
			logFile := filepath.Join(dir, "run.log")
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, "run", "--log", logFile, pb)
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 4 || strings.Contains(stdout.String(), "got: ") {
				t.Errorf("exit %d, want 4 with nothing typed\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			logData, _ := os.ReadFile(logFile)
			lines := answererLines(t, logData)
			if len(lines) == 0 || lines[0]["decision"] != answerer.Failed || !strings.Contains(fmt.Sprint(lines[0]["why"]), tc.why) {
				t.Errorf("the answerer's log lines: %v", lines)
			}
		})
	}
}
