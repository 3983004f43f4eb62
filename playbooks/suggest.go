package playbooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// SuggestSource is where the suggestions of a run's questions come from.
type SuggestSource string

// The sources of suggest.sources.
const (
	// SourceAnswers are the answers people gave to the same question before
	// (docs/learned-answers.md).
	SourceAnswers SuggestSource = "answers"
	// SourceHistory is the shell-history engine (docs/suggest.md).
	SourceHistory SuggestSource = "history"
	// SourceTasks are the project's tasks: Makefile targets, package.json
	// scripts, Taskfile and justfile.
	SourceTasks SuggestSource = "tasks"
)

// suggestSources are the known sources, in documentation order.
var suggestSources = []SuggestSource{SourceAnswers, SourceHistory, SourceTasks}

// Defaults of suggest.auto_answer (docs/learned-answers.md).
const (
	DefaultAutoConfidence = 0.9
	DefaultAutoCount      = 3
	// MaxAutoCount bounds min_count.
	MaxAutoCount = 1_000_000
)

// Suggest makes a run's open questions carry suggestions, and may let clai
// answer from them.
type Suggest struct {
	Pos
	// Sources are where suggestions come from (default: answers).
	Sources []SuggestSource
	// AutoAnswer, when set, answers a question from its first suggestion
	// behind gates; nil leaves every suggestion to people.
	AutoAnswer *AutoAnswer
}

// Has reports whether src is one of the sources.
func (s *Suggest) Has(src SuggestSource) bool { return s != nil && slices.Contains(s.Sources, src) }

// Auto returns the auto_answer of s; nil for none, or when s is nil.
func (s *Suggest) Auto() *AutoAnswer {
	if s == nil {
		return nil
	}
	return s.AutoAnswer
}

// AutoAnswer says when clai types a learned answer itself.
type AutoAnswer struct {
	Pos
	// MinConfidence is the least share of the answers people gave that the
	// suggestion must have; MinCount how often they must have given it.
	MinConfidence float64
	MinCount      int
	// Allow, when set, is what a question must match to be answered; Deny
	// what it must not match.
	Allow *pattern.Matcher
	Deny  *pattern.Matcher
}

var (
	suggestKeys    = []string{"sources", "auto_answer"}
	autoAnswerKeys = []string{"min_confidence", "min_count", "allow", "deny"}
)

// suggest decodes a suggest: section.
func (d *decoder) suggest(n ast.Node) *Suggest {
	const what = "suggest"
	s := &Suggest{Pos: d.pos(d.resolve(n)), Sources: []SuggestSource{SourceAnswers}}
	_, ok := d.trackedFields(n, what, suggestKeys, func(key string, v ast.Node) {
		switch key {
		case "sources":
			s.Sources = d.suggestSources(v, sub(what, key))
		case "auto_answer":
			s.AutoAnswer = d.autoAnswer(v, sub(what, key))
		}
	})
	if !ok {
		return nil
	}
	return s
}

// suggestSources decodes a list of known sources, each at most once.
func (d *decoder) suggestSources(n ast.Node, what string) []SuggestSource {
	items, ok := d.seq(n, what)
	if !ok {
		return nil
	}
	known := make([]string, len(suggestSources))
	for i, s := range suggestSources {
		known[i] = string(s)
	}
	var out []SuggestSource
	for _, item := range items {
		name, ok := d.str(item, what)
		if !ok {
			continue
		}
		src := SuggestSource(name)
		switch {
		case !slices.Contains(suggestSources, src):
			hint := "known sources: " + strings.Join(known, ", ")
			if c := closest(name, known); c != "" {
				hint = fmt.Sprintf("rename it to %q", c)
			}
			d.errorAt(d.resolve(item), "schema", hint, "%s: unknown source %q", what, name)
		case slices.Contains(out, src):
			d.errorAt(d.resolve(item), "schema", "remove the second one", "%s names %q twice", what, name)
		default:
			out = append(out, src)
		}
	}
	return out
}

// autoAnswer decodes suggest.auto_answer.
func (d *decoder) autoAnswer(n ast.Node, what string) *AutoAnswer {
	a := &AutoAnswer{Pos: d.pos(d.resolve(n)), MinConfidence: DefaultAutoConfidence, MinCount: DefaultAutoCount}
	_, ok := d.fields(n, what, autoAnswerKeys, func(key string, v ast.Node) {
		switch key {
		case "min_confidence":
			a.MinConfidence = d.confidence(v, sub(what, key))
		case "min_count":
			if c, ok := d.integer(v, sub(what, key), 1, MaxAutoCount); ok {
				a.MinCount = c
			}
		case "allow":
			a.Allow, _ = d.matcher(v, sub(what, key), false)
		case "deny":
			a.Deny, _ = d.matcher(v, sub(what, key), false)
		}
	})
	if !ok {
		return nil
	}
	return a
}

// checkSuggest warns of an auto_answer that has nothing to answer from: it
// types learned answers, which only the answers source gives.
func (d *decoder) checkSuggest(pb *Playbook) {
	s := pb.Suggest
	if s == nil || s.AutoAnswer == nil || s.Has(SourceAnswers) || d.unsure("suggest") {
		return
	}
	d.report(s.AutoAnswer.Pos, diag.Warning, "suggest", "add answers to suggest.sources, or remove auto_answer",
		"suggest.auto_answer answers from learned answers, but suggest.sources leaves answers out")
}
