package playbooks

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/runner/driver/keys"
)

// Key is a named key of a keys action; the table of keys, their bytes and their
// tmux names, is package keys.
type Key = keys.Key

// KeyNames lists every key name, in documentation order.
func KeyNames() []string { return keys.Names() }

// keyList decodes a key name or a list of key names.
func (d *decoder) keyList(n ast.Node, what string) ([]Key, bool) {
	items := []ast.Node{n}
	if _, isSeq := d.resolve(n).(*ast.SequenceNode); isSeq {
		var ok bool
		if items, ok = d.seq(n, what); !ok {
			return nil, false
		}
		if len(items) == 0 {
			d.errorAt(n, "schema", "name at least one key, e.g. [enter]", "%s is an empty list", what)
			return nil, false
		}
	}
	named := make([]Key, 0, len(items))
	all := true
	for _, item := range items {
		name, ok := d.str(item, what)
		if !ok {
			all = false
			continue
		}
		if !keys.Known(Key(name)) {
			hint := "known keys: enter, tab, esc, up, down, left, right, home, end, pgup, pgdn, backspace, delete, space, ctrl-a … ctrl-z, f1 … f12"
			msg := fmt.Sprintf("unknown key %q in %s", name, what)
			if s := closest(name, KeyNames()); s != "" {
				msg += fmt.Sprintf(", did you mean %q?", s)
			}
			if len(name) > 1 && !strings.Contains(name, "-") && strings.ToLower(name) == name {
				hint += "; to type text use send: or line:"
			}
			d.errorAt(item, "keys", hint, "%s", msg)
			all = false
			continue
		}
		named = append(named, Key(name))
	}
	return named, all
}
