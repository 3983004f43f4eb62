// Package gates decides whether an answer a machine proposes is typed: the
// answerer's model's, or an answer learned from people that auto_answer
// would give. The gates read only what the session shows and the playbook
// says (its danger rules, allow and deny, the least confidence, a visible
// option); the proposer's own words are the answer they check, never a
// reason to pass one.
package gates

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/ask"
)

// Gates decide whether a proposed answer is typed. They read only what the
// session shows and the playbook says; the model's reply is the answer
// they check, never a reason to pass one.
type Gates struct {
	minConfidence float64
	allow, deny   *pattern.Matcher
	danger        []*playbooks.Danger
}

// New returns the gates of spec and of the playbook's danger rules.
func New(spec *playbooks.Answerer, danger []*playbooks.Danger) *Gates {
	return &Gates{minConfidence: spec.MinConfidence, allow: spec.Allow, deny: spec.Deny, danger: danger}
}

// Check returns the answer to type for answer, proposed to q with
// confidence, with the screen as it is now, or nil and why not. dangerSince
// says a danger rule matched since the last answer. Every gate must hold.
func (g *Gates) Check(q ask.Question, now ask.Screen, answer string, confidence float64, dangerSince bool) (*ask.Answer, string) {
	texts := append([]string{q.Text, q.Screen, now.Text}, ask.Labels(q.Options)...)
	switch {
	case q.Reason != ask.Prompt:
		return nil, fmt.Sprintf("the question is a hand-over (%s): for people only", q.Reason)
	case dangerSince:
		return nil, "a danger rule matched since the last answer"
	}
	if name := g.dangerIn(append(texts, answer)...); name != "" {
		return nil, fmt.Sprintf("danger rule %q matches the question, the screen or the answer", name)
	}
	switch {
	case g.deny != nil && matches(g.deny, texts...):
		return nil, "a deny pattern matches the question"
	case g.allow != nil && !matches(g.allow, texts...):
		return nil, "no allow pattern matches the question"
	case !(confidence >= g.minConfidence):
		return nil, fmt.Sprintf("the confidence %s is below min_confidence %s", formatConfidence(confidence), formatConfidence(g.minConfidence))
	case now.Hash != q.ScreenHash:
		return nil, "the screen changed since the question was asked"
	}
	a := &ask.Answer{Question: q.ID, ScreenHash: q.ScreenHash, Channel: ask.ChannelAnswerer}
	if len(q.Options) == 0 {
		text := answer
		a.Text = &text
		return a, ""
	}
	label := option(q.Options, answer)
	if label == "" {
		return nil, fmt.Sprintf("the answer %q is none of the options (%s)", ask.OneLine(answer, 80), strings.Join(ask.Labels(q.Options), " | "))
	}
	a.Choose = label
	return a, ""
}

// option returns the label of the option answer names, blanks around it
// left out (see OptionLabel), or "".
func option(opts []ask.Option, answer string) string {
	return OptionLabel(opts, strings.TrimSpace(answer))
}

// OptionLabel returns the label of the option text names (exactly, else
// ignoring case), or "".
func OptionLabel(opts []ask.Option, text string) string {
	found := ""
	for _, o := range opts {
		switch {
		case o.Label == text:
			return o.Label
		case found == "" && strings.EqualFold(o.Label, text):
			found = o.Label
		}
	}
	return found
}

// dangerIn returns the name of the first danger rule that matches one of
// texts, or "".
func (g *Gates) dangerIn(texts ...string) string {
	for _, d := range g.danger {
		if d.Match != nil && matches(d.Match, texts...) {
			return d.Name
		}
	}
	return ""
}

// matches reports whether a pattern of m is found in one of texts.
func matches(m *pattern.Matcher, texts ...string) bool {
	for _, p := range m.Patterns {
		if p.Kind == pattern.EOF {
			continue
		}
		for _, t := range texts {
			if p.FindInto([]byte(t), nil) != nil {
				return true
			}
		}
	}
	return false
}

// formatConfidence is c as a log or a message says it.
func formatConfidence(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }
