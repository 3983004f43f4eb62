package learned

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
)

func TestGivenLearnsOnlyPeoplesAnswersWithoutSecrets(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("p.yaml", []byte(`version: 1
name: x
spawn: {command: [cat]}
rules:
  - name: vault
    match: "Vault code:"
    secret: env:VAULT
    limit: 1
`))
	if pb == nil {
		t.Fatal(findings)
	}
	secret := secretQuestions(pb)
	yesNo := []ask.Option{{Label: "y"}, {Label: "n"}}
	menu := []ask.Option{{Label: "Yes"}, {Label: "No"}}
	closed := func(text string, opts []ask.Option, channel, sent string) ask.Question {
		return ask.Question{ID: "q1", Reason: ask.Prompt, Text: text, Options: opts,
			Closed: &ask.Closed{How: ask.Answered, Channel: channel, Sent: sent, At: time.Unix(1, 0)}}
	}
	for _, tc := range []struct {
		name       string
		q          ask.Question
		kind, text string
		why        string
	}{
		{"a line", closed("Name: (demo)", nil, ask.ChannelCLI, "app 1\r"), KindText, "app 1", ""},
		{"a choice", closed("Go on? [y/n]", yesNo, ask.ChannelDashboard, `choose "y"`), KindChoice, "y", ""},
		{"a choice typed", closed("Go on? [y/n]", yesNo, ask.ChannelTelegram, "Y\r"), KindChoice, "y", ""},
		{"a menu entry", closed("Trust this folder?", menu, ask.ChannelNtfy, `choose "Yes"`), KindOption, "Yes", ""},
		{"a menu's label typed", closed("Trust this folder?", menu, ask.ChannelCLI, "Yes\r"), KindText, "Yes", ""},
		{"keys", closed("Trust this folder?", menu, ask.ChannelCLI, "keys down enter"), "", "", "keys, which are not learned"},
		{"the answerer", closed("Go on? [y/n]", yesNo, ask.ChannelAnswerer, `choose "y"`), "", "", "answered by answerer, not a person"},
		{"learned", closed("Go on? [y/n]", yesNo, ask.ChannelLearned, `choose "y"`), "", "", "answered by learned, not a person"},
		{"the terminal", closed("Go on? [y/n]", yesNo, ask.ChannelTerminal, ""), "", "", "what was typed is not known"},
		{"a password prompt", closed("New password:", nil, ask.ChannelCLI, "s3cret\r"), "", "", "the question asks for a secret"},
		{"an API key", closed("Paste your API key", nil, ask.ChannelCLI, "sk-123\r"), "", "", "the question asks for a secret"},
		{"a playbook's secret", closed("Vault code:", nil, ask.ChannelCLI, "1234\r"), "", "", "the question asks for a secret"},
		{"masked", closed("Name:", nil, ask.ChannelCLI, "x"+redact.Mask+"\r"), "", "", "it holds a secret"},
		{"masked question", closed("Use "+redact.Mask+"?", nil, ask.ChannelCLI, "y\r"), "", "", "it holds a secret"},
		{"a CSI in a line", closed("Name:", nil, ask.ChannelCLI, "demo\u009b2J\r"), "", "", "it cannot be typed as a text answer: a text answer is one line of visible characters: it holds U+009B (a control character) at byte 4; send keys for control characters"},
		{"a bidi override in a line", closed("Name:", nil, ask.ChannelDashboard, "\u202eomed\r"), "", "", "it cannot be typed as a text answer: a text answer is one line of visible characters: it holds U+202E (a format character: a bidi control or an invisible one) at byte 0; send keys for control characters"},
		{"moved on", ask.Question{Reason: ask.Prompt, Text: "x", Closed: &ask.Closed{How: ask.MovedOn}}, "", "", "not answered"},
	} {
		a, why := given(tc.q, secret)
		if why != tc.why || a.Kind != tc.kind || a.Text != tc.text {
			t.Errorf("%s: given = %q %q (%q), want %q %q (%q)", tc.name, a.Kind, a.Text, why, tc.kind, tc.text, tc.why)
		}
	}
	handOver := closed("Go on? [y/n]", yesNo, ask.ChannelCLI, `choose "y"`)
	handOver.Reason = ask.Danger
	if _, why := given(handOver, secret); why != "a hand-over's decision (danger)" {
		t.Errorf("a hand-over's answer: %q", why)
	}
}
