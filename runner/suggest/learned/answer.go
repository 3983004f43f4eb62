package learned

import (
	"strconv"
	"strings"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/gates"
)

// given returns the answer a person gave to the closed question q, as it is
// stored (without where and when), or why it is not learned: only a
// person's line or option at a prompt is, never clai's own answers, keys, a
// hand-over's decision, anything a secret may be in, or a text that
// ask.CheckText refuses.
func given(q ask.Question, secret func(text string) bool) (Answer, string) {
	c := q.Closed
	switch {
	case c == nil || c.How != ask.Answered:
		return Answer{}, "not answered"
	case !ask.ByPerson(c.Channel):
		return Answer{}, "answered by " + c.Channel + ", not a person"
	case q.Reason != ask.Prompt:
		return Answer{}, "a hand-over's decision (" + string(q.Reason) + ")"
	case c.Sent == "":
		return Answer{}, "what was typed is not known"
	case strings.Contains(c.Sent, redact.Mask) || strings.Contains(q.Text, redact.Mask):
		return Answer{}, "it holds a secret"
	case secret(q.Text):
		return Answer{}, "the question asks for a secret"
	}
	a := Answer{Question: q.Text, Template: Template(q.Text), Channel: c.Channel}
	for _, o := range q.Options {
		a.Options = append(a.Options, o.Label)
	}
	switch {
	case strings.HasPrefix(c.Sent, "choose "):
		label, err := strconv.Unquote(strings.TrimPrefix(c.Sent, "choose "))
		if err != nil {
			return Answer{}, "an option that does not read"
		}
		a.Kind, a.Text = optionKind(q), label
	case strings.HasSuffix(c.Sent, "\r") && !strings.ContainsAny(strings.TrimSuffix(c.Sent, "\r"), "\r\n"):
		a.Kind, a.Text = KindText, strings.TrimSuffix(c.Sent, "\r")
		if label := gates.OptionLabel(q.Options, a.Text); label != "" && optionKind(q) == KindChoice {
			// A choice typed as a line is the choice.
			a.Kind, a.Text = KindChoice, label
		}
	default:
		return Answer{}, "keys, which are not learned"
	}
	if err := ask.CheckText(a.Text); err != nil {
		return Answer{}, "it cannot be typed as a text answer: " + err.Error()
	}
	return a, ""
}

// optionKind says whether q's options are the choices of its line (a [y/N]
// question, whose choice is typed) or a menu's entries.
func optionKind(q ask.Question) string {
	labels := make([]string, len(q.Options))
	for i, o := range q.Options {
		labels[i] = o.Label
	}
	if len(labels) > 1 && strings.Contains(strings.ReplaceAll(q.Text, " ", ""), strings.Join(labels, "/")) {
		return KindChoice
	}
	return KindOption
}

// secretQuestions returns whether a question's text asks for a secret: it
// reads like a password prompt, or a step or rule of pb that types a secret
// matches it.
func secretQuestions(pb *playbooks.Playbook) func(text string) bool {
	var secret []*pattern.Matcher
	add := func(m *pattern.Matcher, a *playbooks.Action) {
		if m != nil && a != nil && a.Kind == playbooks.ActSecret {
			secret = append(secret, m)
		}
	}
	for _, s := range pb.Steps {
		add(s.Expect, s.Action)
		for _, c := range s.Cases {
			add(c.Match, c.Action)
		}
	}
	for _, r := range pb.Rules {
		add(r.Match, r.Action)
	}
	return func(text string) bool {
		if playbooks.SecretPrompt(text) {
			return true
		}
		for _, m := range secret {
			for _, p := range m.Patterns {
				if p.Kind != pattern.EOF && p.FindInto([]byte(text), nil) != nil {
					return true
				}
			}
		}
		return false
	}
}
