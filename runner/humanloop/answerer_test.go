package humanloop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/answerer/answerertest"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/notify"
)

// answererPlaybook asks an obvious question, then one a danger rule hands
// over; its program is the first argument, its timeouts the second, and its
// answerer (and what follows it) the third.
const answererPlaybook = `
version: 1
name: answerer
spawn: {command: %s}
settings: {settle: 100ms}
timeouts: %s
danger:
  - name: wipe
    match: {regex: 'rm\s+-rf'}
    action: manual
answerer:
%s
`

// answererProgram is the program of answererPlaybook: Continue? [Y/n],
// then the rm -rf hand-over.
func answererProgram(t *testing.T) string {
	t.Helper()
	return prompterCommand(t, "-q", "Continue? [Y/n] ", "-q", "About to run: rm -rf build. Proceed? [y/N] ")
}

// alwaysYes is what the fake models say to every question: yes, at
// confidence 1.
const alwaysYes = `{"answer": "y", "confidence": 1.0, "reason": "the user wants this done"}`

// A run over a real program with a model that says yes to everything at
// confidence 1 (a command, and loopback fakes of the Anthropic Messages API
// and an OpenAI-compatible chat-completions API): Continue? [Y/n] is
// answered (the option Y is typed), the rm -rf prompt is not (it waits for
// people until timeouts.prompt, exit 4), each decision is in the log with
// the model, its confidence and its reason, the report names the model as
// who answered and lists the decisions (its HTML too), and the API's key
// shows nowhere.
func TestAnswererTakesTheEasyOne(t *testing.T) {
	iso := isolate(t)
	const key = "sk-e2e-secret-key"
	anthropic := answerertest.Start(t, &answerertest.API{Kind: "anthropic", Key: key, Reply: alwaysYes})
	openai := answerertest.Start(t, &answerertest.API{Kind: "openai", Key: key, Reply: alwaysYes})
	program := answererProgram(t)
	for name, spec := range map[string]string{
		"command":   fmt.Sprintf("  command: [%q]", scriptModel(t, alwaysYes)),
		"anthropic": fmt.Sprintf("  api: anthropic\n  url: %q\n  model: %s\n  key: env:E2E_MODEL_KEY", anthropic, answerertest.Model),
		"openai":    fmt.Sprintf("  api: openai\n  url: %q\n  model: %s\n  key: env:E2E_MODEL_KEY", openai, answerertest.Model),
	} {
		t.Run(name, func(t *testing.T) {
			pb := parsePlaybook(t, answererPlaybook, program, "{prompt: 2s}", spec)
			r := iso.startRun(t, pb, humanloop.Options{Headless: true, Environ: append(os.Environ(), "E2E_MODEL_KEY="+key)})
			rep, err := r.wait(t)
			if err != nil || rep == nil || rep.ExitCode != 4 {
				t.Fatalf("the run: %v, %+v, want exit 4: the rm -rf prompt waits for people\n%s", err, rep, r.notices.String())
			}
			if got := r.shown.String(); !strings.Contains(got, "got: Y") || strings.Contains(got, "got: y") {
				t.Errorf("the program got, want Continue answered with Y and rm -rf not answered:\n%s", got)
			}
			decisions := r.logLines(answerer.LogEvent)
			if len(decisions) != 2 || decisions[0]["decision"] != answerer.Answered || decisions[1]["decision"] != answerer.Declined ||
				decisions[0]["confidence"] != "1" || decisions[0]["reason"] != "the user wants this done" ||
				!strings.Contains(fmt.Sprint(decisions[1]["why"]), "hand-over (danger)") {
				t.Errorf("the answerer's log lines: %v", decisions)
			}
			if len(rep.Questions) != 2 || rep.Questions[0].Closed == nil || rep.Questions[0].Closed.Channel != "answerer" ||
				!strings.Contains(rep.Questions[0].Closed.By, "(confidence 1): the user wants this done") ||
				len(rep.Answerer) != 2 || rep.Answerer[0].Decision != answerer.Answered || rep.Answerer[1].Decision != answerer.Declined ||
				rep.Answerer[0].Confidence == nil || *rep.Answerer[0].Confidence != 1 || rep.Answerer[0].Reason != "the user wants this done" ||
				!strings.Contains(rep.Answerer[1].Why, "hand-over (danger)") {
				data, _ := json.MarshalIndent(rep, "", "  ")
				t.Errorf("the report's questions and decisions:\n%s", data)
			}
			var data, html bytes.Buffer
			if err := rep.Write(&data, "json"); err != nil {
				t.Fatal(err)
			}
			if err := rep.Write(&html, "html"); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(html.String(), "<h2>Answerer</h2>") || !strings.Contains(html.String(), "<td>the user wants this done</td>") {
				t.Errorf("the HTML report has no answerer's decisions:\n%s", html.String())
			}
			for what, text := range map[string]string{"the output": r.shown.String(), "the notices": r.notices.String(),
				"the log": r.log.String(), "the report": data.String(), "the HTML report": html.String()} {
				if strings.Contains(text, key) {
					t.Errorf("%s holds the key", what)
				}
			}
		})
	}
}

// A dry run says what the answerer would answer, and types nothing.
func TestAnswererDryRun(t *testing.T) {
	iso := isolate(t)
	pb := parsePlaybook(t, answererPlaybook, answererProgram(t), "{prompt: 2s}", fmt.Sprintf("  command: [%q]", scriptModel(t, alwaysYes)))
	r := iso.startRun(t, pb, humanloop.Options{Headless: true, DryRun: true})
	if _, err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if got := r.notices.String(); !strings.Contains(got, `the answerer would answer q1 "Continue? [Y/n]" with the option "Y"`) {
		t.Errorf("the notices:\n%s", got)
	}
	if strings.Contains(r.shown.String(), "got: ") {
		t.Errorf("a dry run typed an answer:\n%s", r.shown.String())
	}
}

// With summarize: true and a notification target, the question the
// answerer takes is told to nobody, and the danger hand-over it leaves to
// people is told with the model's one-line summary, once the answerer has
// decided.
func TestAnswererSummarizesForNotifications(t *testing.T) {
	iso := isolate(t)
	model := scriptModel(t, `{"answer": "y", "confidence": 1, "reason": "fine", "summary": "the installer wants to go on"}`)
	dir, target := toldDir(t, "question, danger")
	spec := fmt.Sprintf("  command: [%q]\n  summarize: true\nnotify:\n%s", model, target)
	pb := parsePlaybook(t, answererPlaybook, answererProgram(t), "{prompt: 2s}", spec)
	r := iso.startRun(t, pb, humanloop.Options{Headless: true})
	if _, err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.shown.String(), "got: Y") {
		t.Errorf("Continue was not answered:\n%s\n%s", r.shown.String(), r.notices.String())
	}
	var asked, closed []notify.Notification
	for _, n := range told(t, dir) {
		if n.Event == notify.EventClosed {
			closed = append(closed, n)
		} else {
			asked = append(asked, n)
		}
	}
	if len(asked) != 1 || asked[0].Question == nil {
		t.Fatalf("%d notifications, want 1 (the hand-over; the question answered is told to nobody): %+v", len(asked), asked)
	}
	n := asked[0]
	if n.Text != "the installer wants to go on" || n.Question.Summary != n.Text || n.Question.Reason != "danger" {
		t.Errorf("the notification: %+v, its question %+v", n, n.Question)
	}
	// Only the close of the question told of may follow.
	for _, c := range closed {
		if c.Closed == nil || c.Closed.Question != n.Question.ID {
			t.Errorf("the close %+v of a question told to nobody", c.Closed)
		}
	}
}

// A model that hangs, and one that replies garbage, leave the question to
// people: nothing is typed, the run waits for an answer until
// timeouts.prompt, and the log says why.
func TestAnswererThatFailsLeavesItToPeople(t *testing.T) {
	iso := isolate(t)
	program := answererProgram(t)
	for name, tc := range map[string]struct{ body, why string }{
		"hangs":   {"sleep 600 & sleep 600", "the model gave no reply within 300ms"},
		"garbage": {"cat > /dev/null; echo 'Sure! The answer is yes.'", "no JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			spec := fmt.Sprintf("  command: [%q]\n  timeout: 300ms", scriptFile(t, tc.body))
			pb := parsePlaybook(t, answererPlaybook, program, "{prompt: 2s}", spec)
			r := iso.startRun(t, pb, humanloop.Options{Headless: true})
			rep, err := r.wait(t)
			if err != nil || rep == nil || rep.ExitCode != 4 || strings.Contains(r.shown.String(), "got: ") {
				t.Errorf("the run: %v, %+v, want exit 4 with nothing typed\n%s\n%s", err, rep, r.shown.String(), r.notices.String())
			}
			lines := r.logLines(answerer.LogEvent)
			if len(lines) == 0 || lines[0]["decision"] != answerer.Failed || !strings.Contains(fmt.Sprint(lines[0]["why"]), tc.why) {
				t.Errorf("the answerer's log lines: %v", lines)
			}
		})
	}
}
