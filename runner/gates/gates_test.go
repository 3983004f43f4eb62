package gates_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/gates"
)

// gatedPlaybook has a danger rule for rm -rf and an answerer that allows
// everything but passwords.
const gatedPlaybook = `
version: 1
name: gated
spawn: {command: [x]}
danger:
  - name: wipe
    match: {regex: 'rm\s+-rf'}
    action: manual
answerer:
  command: [model]
  min_confidence: 0.9
  deny: [{regex: '(?i)password'}]
`

func gatesOf(t *testing.T, src string) *gates.Gates {
	t.Helper()
	pb, findings := playbooks.Parse("p.yaml", []byte(src))
	if pb == nil {
		t.Fatal(findings)
	}
	return gates.New(pb.Answerer, pb.Danger)
}

// question is a prompt question on the screen text, with the options given.
func question(text, screen string, options ...string) (ask.Question, ask.Screen) {
	q := ask.Question{ID: "q1", Reason: ask.Prompt, Text: text, Screen: screen, ScreenHash: "h1", Options: []ask.Option{}}
	for _, o := range options {
		q.Options = append(q.Options, ask.Option{Label: o})
	}
	return q, ask.Screen{Text: screen, Hash: "h1"}
}

// reply is an answer proposed with its confidence.
type reply struct {
	Answer     string
	Confidence float64
}

func TestGates(t *testing.T) {
	t.Parallel()
	g := gatesOf(t, gatedPlaybook)
	cont, contScreen := question("Continue? [Y/n]", "Installing...\nContinue? [Y/n]", "Y", "n")
	wipe, wipeScreen := question("Proceed? [y/N]", "About to run: rm -rf build\nProceed? [y/N]", "y", "N")
	name, nameScreen := question("Project name:", "Project name:")
	handover := cont
	handover.Reason = ask.Danger
	for _, tc := range []struct {
		name        string
		q           ask.Question
		now         ask.Screen
		reply       reply
		dangerSince bool
		choose      string
		text        *string
		why         string
	}{
		{name: "a confident safe answer", q: cont, now: contScreen, reply: reply{Answer: "y", Confidence: 0.97}, choose: "Y"},
		{name: "rm -rf at confidence 1", q: wipe, now: wipeScreen, reply: reply{Answer: "y", Confidence: 1}, why: `danger rule "wipe"`},
		{name: "rm -rf on the screen now", q: cont, now: ask.Screen{Text: "rm -rf /\nContinue? [Y/n]", Hash: "h1"}, reply: reply{Answer: "Y", Confidence: 1}, why: `danger rule "wipe"`},
		{name: "rm -rf in the answer", q: name, now: nameScreen, reply: reply{Answer: "x; rm -rf ~", Confidence: 1}, why: `danger rule "wipe"`},
		{name: "low confidence", q: cont, now: contScreen, reply: reply{Answer: "Y", Confidence: 0.5}, why: "confidence 0.5 is below min_confidence 0.9"},
		{name: "a hand-over", q: handover, now: contScreen, reply: reply{Answer: "Y", Confidence: 1}, why: "hand-over (danger)"},
		{name: "a danger since the last answer", q: cont, now: contScreen, reply: reply{Answer: "Y", Confidence: 1}, dangerSince: true, why: "danger rule matched since"},
		{name: "not an option", q: cont, now: contScreen, reply: reply{Answer: "yes please", Confidence: 1}, why: "none of the options"},
		{name: "the screen changed", q: cont, now: ask.Screen{Text: "Continue? [Y/n]", Hash: "h2"}, reply: reply{Answer: "Y", Confidence: 1}, why: "screen changed"},
		{name: "a text", q: name, now: nameScreen, reply: reply{Answer: "demo", Confidence: 0.95}, text: ptr("demo")},
		{name: "denied", q: ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Password:", Screen: "Password:", ScreenHash: "h1"}, now: ask.Screen{Text: "Password:", Hash: "h1"}, reply: reply{Answer: "hunter2", Confidence: 1}, why: "deny pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, why := g.Check(tc.q, tc.now, tc.reply.Answer, tc.reply.Confidence, tc.dangerSince)
			switch {
			case tc.why != "":
				if a != nil || !strings.Contains(why, tc.why) {
					t.Errorf("answer %+v, why %q; want declined with %q", a, why, tc.why)
				}
			case a == nil:
				t.Errorf("declined: %s", why)
			case a.Channel != ask.ChannelAnswerer || a.Question != "q1" || a.ScreenHash != "h1":
				t.Errorf("answer %+v", a)
			case tc.text != nil && (a.Text == nil || *a.Text != *tc.text || a.Choose != ""):
				t.Errorf("answer %+v, want the text %q", a, *tc.text)
			case tc.text == nil && (a.Choose != tc.choose || a.Text != nil):
				t.Errorf("answer %+v, want the option %q", a, tc.choose)
			}
		})
	}
}

func TestGatesAllow(t *testing.T) {
	t.Parallel()
	g := gatesOf(t, "version: 1\nname: n\nspawn: {command: [x]}\nanswerer: {command: [m], allow: ['[Y/n]']}\n")
	q, now := question("Overwrite? [y/N]", "Overwrite? [y/N]", "y", "N")
	if a, why := g.Check(q, now, "y", 1, false); a != nil || !strings.Contains(why, "no allow pattern") {
		t.Errorf("answer %+v, why %q", a, why)
	}
	q, now = question("Continue? [Y/n]", "Continue? [Y/n]", "Y", "n")
	if a, why := g.Check(q, now, "Y", 1, false); a == nil {
		t.Errorf("declined: %s", why)
	}
}

func ptr(s string) *string { return &s }
