package playbooks

import (
	"slices"

	"github.com/goccy/go-yaml/ast"
)

// MaxChildEnv bounds the names of an env: list.
const MaxChildEnv = 64

// childEnv decodes the env: list of a command target or a command
// answerer: the names of the environment variables the program is given
// although they back secrets or look like credentials (docs/questions.md).
func (d *decoder) childEnv(n ast.Node, what string) []string {
	names, ok := d.strings(n, what)
	if !ok {
		return nil
	}
	if len(names) > MaxChildEnv {
		d.errorAt(d.resolve(n), "schema", "name fewer variables", "%s has %d names, at most %d are allowed", what, len(names), MaxChildEnv)
		return nil
	}
	items, _ := d.seq(n, what)
	var out []string
	for i, name := range names {
		if !envName(name) {
			d.errorAt(d.resolve(items[i]), "schema", "write the variable's name, such as GITHUB_TOKEN: letters, digits and _, not starting with a digit", "%s[%d] is not an environment variable's name", what, i)
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// envName reports whether s is an environment variable's name as a shell
// takes it: letters, digits and _, not starting with a digit.
func envName(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// onlyForCommand reports env: on a target or an answerer that runs no
// program.
func (d *decoder) onlyForCommand(present map[string]entry, what string) {
	if e, has := present["env"]; has {
		d.errorAt(e.keyN, "schema", "remove it: env: names the variables a command: program is given", "%s.env is for a command, which this is not", what)
	}
}

// SecretVariables names the environment variables behind the secrets of pb and of
// the user config cfg (either may be nil), in order, without repeats: every
// env:NAME of a step's or rule's secret:, a webhook's secret, the
// answerer's key and a channel's token, and every ${NAME} a notification
// target's URL reads. Programs clai runs for itself are not given them
// (internal/childenv) unless an env: list names them.
func SecretVariables(pb *Playbook, cfg *Config) []string {
	var out []string
	add := func(ref *SecretRef) {
		if ref != nil && ref.Source == SecretEnv && !slices.Contains(out, ref.Name) {
			out = append(out, ref.Name)
		}
	}
	targets := func(list []*Notify) {
		for _, t := range list {
			if t.Webhook != nil {
				add(t.Webhook.Secret)
			}
			for _, name := range t.Env() {
				add(&SecretRef{Source: SecretEnv, Name: name})
			}
		}
	}
	if pb != nil {
		for _, a := range pb.Actions() {
			if a.Kind == ActSecret {
				add(&a.Secret)
			}
		}
		targets(pb.Notify)
		if pb.Answerer != nil {
			add(pb.Answerer.Key)
		}
	}
	if cfg != nil {
		targets(cfg.Notify)
		if cfg.Answerer != nil {
			add(cfg.Answerer.Key)
		}
		// A channel's secrets are what its settings say comes from
		// env:NAME or file:PATH, whatever field holds it.
		for _, c := range cfg.Channels {
			for _, ref := range c.Settings.secretRefs() {
				add(&ref)
			}
		}
	}
	return out
}
