package playbooks

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/runner/suggest/secretfilter"
)

// History is the config file's history: section, for the shell-history
// suggestions.
type History struct {
	// Ignore is the stop-list: commands, or their first words, neither
	// learnt nor suggested. nil when the file gives none (the default list
	// holds); empty when it gives an empty list (nothing is ignored).
	Ignore []string
	// SecretPatterns are the user's own patterns of secrets, compiled by
	// secretfilter.Compile: a command that matches one is not stored.
	SecretPatterns []*regexp.Regexp
}

// Bounds of history.ignore, as the suggestion daemon takes it.
const (
	MaxHistoryIgnore      = 256
	MaxHistoryIgnoreBytes = 256
)

// history decodes the history: section.
func (d *decoder) history(n ast.Node) *History {
	h := &History{}
	d.fields(n, "history", []string{"ignore", "secret_patterns"}, func(key string, v ast.Node) {
		switch key {
		case "ignore":
			h.Ignore = d.historyIgnore(v, "history.ignore")
		case "secret_patterns":
			h.SecretPatterns = d.secretPatterns(v, "history.secret_patterns")
		}
	})
	return h
}

// historyIgnore decodes history.ignore: a list of at most MaxHistoryIgnore
// commands, each one line of text, not empty, of at most
// MaxHistoryIgnoreBytes bytes.
func (d *decoder) historyIgnore(n ast.Node, what string) []string {
	items, ok := d.seq(n, what)
	if !ok {
		return nil
	}
	if len(items) > MaxHistoryIgnore {
		d.errorAt(d.resolve(n), "schema", "list fewer commands", "%s has %d entries, at most %d are allowed", what, len(items), MaxHistoryIgnore)
		return nil
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		where := fmt.Sprintf("%s[%d]", what, i)
		s, ok := d.str(item, where)
		switch {
		case !ok:
		case strings.TrimSpace(s) == "":
			d.errorAt(d.resolve(item), "schema", `name a command, e.g. "clear", or its first words, e.g. "git stash list"`, "%s is empty", where)
		case len(s) > MaxHistoryIgnoreBytes || !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\x00"):
			d.errorAt(d.resolve(item), "schema", fmt.Sprintf("one line of at most %d bytes", MaxHistoryIgnoreBytes), "%s is no command to ignore", where)
		default:
			out = append(out, s)
		}
	}
	return out
}

// secretPatterns decodes and compiles the user's patterns of secrets.
func (d *decoder) secretPatterns(n ast.Node, what string) []*regexp.Regexp {
	items, ok := d.seq(n, what)
	if !ok {
		return nil
	}
	if len(items) > secretfilter.MaxPatterns {
		d.errorAt(d.resolve(n), "schema", "keep the patterns that matter", "%s has %d entries, at most %d are allowed", what, len(items), secretfilter.MaxPatterns)
		return nil
	}
	var res []*regexp.Regexp
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", what, i)
		s, ok := d.str(item, at)
		if !ok {
			continue
		}
		re, err := secretfilter.Compile(s)
		if err != nil {
			d.errorAt(d.resolve(item), "schema", "write a Go regular expression (RE2) that matches the secret, e.g. 'corp-[0-9]{6}'", "%s: %v", at, err)
			continue
		}
		res = append(res, re)
	}
	return res
}
