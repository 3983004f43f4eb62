package playbooks

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/runner/suggest/secretfilter"
)

// Config is the user's config file: what every playbook of the user shares.
type Config struct {
	// Path is the file it was read from.
	Path string
	// Notify are the notification targets every run adds to its playbook's.
	Notify []*Notify
	// Answerer is the answerer of every run whose playbook has none.
	Answerer *Answerer
	// Channels are the two-way channels every run asks its questions on.
	Channels []*Channel
	// History is how clai daemon learns the shell history; nil when the
	// file says nothing of it.
	History *History
}

// History is the history: section of the config file.
type History struct {
	// SecretPatterns are the user's own patterns of secrets, compiled by
	// secretfilter.Compile: a command that matches one is not stored.
	SecretPatterns []*regexp.Regexp
}

// ConfigPath returns where the user's config file is:
// $XDG_CONFIG_HOME/clai/config.yaml, else ~/.config/clai/config.yaml; "" when
// environ names neither folder.
func ConfigPath(environ []string) string {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if dir := env["XDG_CONFIG_HOME"]; filepath.IsAbs(dir) {
		return filepath.Join(dir, "clai", "config.yaml")
	}
	if home := env["HOME"]; filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "clai", "config.yaml")
	}
	return ""
}

// LoadConfig reads the user's config file at path. A file that is not there
// is an empty config; its error is a diag.List of every error found, or the
// error reading the file.
func LoadConfig(path string) (*Config, error) {
	src, err := readPlaybook(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Config{Path: path}, nil
	case errors.Is(err, errTooLarge):
		return nil, diag.List{tooLarge(path)}
	case err != nil:
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, findings := ParseConfig(path, src)
	if findings.HasErrors() {
		var errs diag.List
		for _, f := range findings {
			if f.Severity == diag.Error {
				errs = append(errs, f)
			}
		}
		return nil, errs
	}
	return cfg, nil
}

// LintConfig checks the user config file at path as clai run reads it: its
// findings are those of a playbook's notify: list and answerer: (but literal-secret: the
// file is the place for tokens), missing-env of environ included. src is
// what was read; found is false, with no finding, when there is no file at
// path.
func LintConfig(path string, environ []string) (findings diag.List, src []byte, found bool) {
	src, err := readPlaybook(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, false
	case errors.Is(err, errTooLarge):
		return diag.List{tooLarge(path)}, nil, true
	case err != nil:
		return diag.List{ioFinding(path, err)}, nil, true
	}
	cfg, findings := ParseConfig(path, src)
	if cfg != nil {
		findings = append(findings, missingEnv(cfg.Notify, environ)...)
	}
	findings.Sort()
	return findings, src, true
}

// ParseConfig decodes a user config file: notify:, a list of targets as in a
// playbook, answerer:, as in a playbook, channels:, the two-way channels, and
// history:, how the shell history is learnt; a token may be written out in it (it is
// the place for them), so the literal-secret check does not apply.
func ParseConfig(name string, src []byte) (*Config, diag.List) {
	if f, exceeded := checkBounds(name, src); exceeded {
		return nil, diag.List{f}
	}
	d := &decoder{file: name, typos: map[ast.Node]map[string]bool{}}
	cfg := &Config{Path: name}
	if root := d.document(src, ""); root != nil {
		d.fields(root, "the config file", []string{"notify", "answerer", "channels", "history"}, func(key string, v ast.Node) {
			switch key {
			case "notify":
				cfg.Notify = d.notifyList(v, true)
			case "answerer":
				cfg.Answerer = d.answerer(v, true)
			case "channels":
				cfg.Channels = d.channelList(v)
			case "history":
				cfg.History = d.history(v)
			}
		})
	}
	d.diags.Sort()
	if d.diags.HasErrors() {
		return nil, d.diags
	}
	return cfg, d.diags
}

// history decodes the history: section: secret_patterns, a list of Go
// regular expressions.
func (d *decoder) history(n ast.Node) *History {
	h := &History{}
	d.fields(n, "history", []string{"secret_patterns"}, func(key string, v ast.Node) {
		if key == "secret_patterns" {
			h.SecretPatterns = d.secretPatterns(v, "history.secret_patterns")
		}
	})
	return h
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
