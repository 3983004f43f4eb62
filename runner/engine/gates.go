package engine

import (
	"bytes"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// headLen is how many bytes of a pattern's required literal make its head:
// rules whose literals begin alike ("Decoy question 1", "Decoy question 2")
// share one.
const (
	headLen    = 8
	minHeadLen = 4
)

// ruleGates spares a stream's evaluation the rules that cannot match: a rule
// whose every pattern needs a literal (pattern.Pattern.Required) is looked
// at only when the head of one of them is in the text. A head two or more
// patterns share is looked for once an evaluation for all of them, so a
// playbook of many rules alike costs one search of the window where each
// rule would search it again. A head no other pattern shares gates nothing:
// the rule's own search is as quick.
type ruleGates struct {
	heads [][]byte
	// of holds, for each rule by its place, the heads of its patterns; nil
	// for a rule that is always looked at.
	of [][]int
	// found is, for each head in this evaluation, 0 when not looked for
	// yet, 1 when in the text, -1 when not.
	found []int8
}

// newRuleGates returns the gates of the rules, or nil when none would gate.
func newRuleGates(rules []*playbooks.Rule) *ruleGates {
	head := func(p *pattern.Pattern) string {
		if p.Kind == pattern.EOF || len(p.Required) < minHeadLen {
			return ""
		}
		return p.Required[:min(headLen, len(p.Required))]
	}
	shared := map[string]int{}
	for _, r := range rules {
		if r.Match == nil {
			continue
		}
		for _, p := range r.Match.Patterns {
			if h := head(p); h != "" {
				shared[h]++
			}
		}
	}
	g := &ruleGates{of: make([][]int, len(rules))}
	index := map[string]int{}
	for i, r := range rules {
		if r.Match == nil || !gated(r.Match, func(p *pattern.Pattern) bool { return shared[head(p)] >= 2 }) {
			continue
		}
		for _, p := range r.Match.Patterns {
			if p.Kind == pattern.EOF {
				continue
			}
			h := head(p)
			k, ok := index[h]
			if !ok {
				k = len(g.heads)
				index[h] = k
				g.heads = append(g.heads, []byte(h))
			}
			g.of[i] = append(g.of[i], k)
		}
	}
	if len(g.heads) == 0 {
		return nil
	}
	g.found = make([]int8, len(g.heads))
	return g
}

// gated reports whether m has text patterns and keep holds for each: an EOF
// pattern matches no text, and a matcher of it alone is never gated.
func gated(m *pattern.Matcher, keep func(*pattern.Pattern) bool) bool {
	n := 0
	for _, p := range m.Patterns {
		if p.Kind == pattern.EOF {
			continue
		}
		if !keep(p) {
			return false
		}
		n++
	}
	return n > 0
}

// begin starts an evaluation: no head has been looked for in its text.
func (g *ruleGates) begin() {
	if g != nil {
		clear(g.found)
	}
}

// shut reports whether rule i cannot match text: none of its heads is in it.
// text is the same for every rule of an evaluation.
func (g *ruleGates) shut(i int, text []byte) bool {
	if g == nil || g.of[i] == nil {
		return false
	}
	for _, k := range g.of[i] {
		if g.found[k] == 0 {
			g.found[k] = -1
			if bytes.Contains(text, g.heads[k]) {
				g.found[k] = 1
			}
		}
		if g.found[k] > 0 {
			return false
		}
	}
	return true
}
