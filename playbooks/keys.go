package playbooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// Key is a named key of a keys action.
type Key string

// Bytes returns what the key sends to a terminal. appCursor selects the
// application-cursor-mode form of the arrow, home and end keys (ESC O A instead of
// ESC [ A), which full-screen programs switch on.
func (k Key) Bytes(appCursor bool) []byte {
	if seq, ok := cursorKeys[k]; ok {
		if appCursor {
			return []byte("\x1bO" + seq)
		}
		return []byte("\x1b[" + seq)
	}
	if b, ok := plainKeys[k]; ok {
		return []byte(b)
	}
	if name, ok := strings.CutPrefix(string(k), "ctrl-"); ok && len(name) == 1 {
		return []byte{name[0] - 'a' + 1}
	}
	return nil
}

var cursorKeys = map[Key]string{"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}

var plainKeys = map[Key]string{
	"enter": "\r", "tab": "\t", "esc": "\x1b", "space": " ", "backspace": "\x7f",
	"delete": "\x1b[3~", "pgup": "\x1b[5~", "pgdn": "\x1b[6~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// KeyNames lists every key name, in documentation order.
func KeyNames() []string {
	names := []string{"enter", "tab", "esc", "up", "down", "left", "right", "home", "end",
		"pgup", "pgdn", "backspace", "delete", "space"}
	for c := 'a'; c <= 'z'; c++ {
		names = append(names, "ctrl-"+string(c))
	}
	for i := 1; i <= 12; i++ {
		names = append(names, fmt.Sprintf("f%d", i))
	}
	return names
}

var keyNames = KeyNames()

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
	keys := make([]Key, 0, len(items))
	all := true
	for _, item := range items {
		name, ok := d.str(item, what)
		if !ok {
			all = false
			continue
		}
		if !slices.Contains(keyNames, name) {
			hint := "known keys: enter, tab, esc, up, down, left, right, home, end, pgup, pgdn, backspace, delete, space, ctrl-a … ctrl-z, f1 … f12"
			msg := fmt.Sprintf("unknown key %q in %s", name, what)
			if s := closest(name, keyNames); s != "" {
				msg += fmt.Sprintf(", did you mean %q?", s)
			}
			if len(name) > 1 && !strings.Contains(name, "-") && strings.ToLower(name) == name {
				hint += "; to type text use send: or line:"
			}
			d.errorAt(item, "keys", hint, "%s", msg)
			all = false
			continue
		}
		keys = append(keys, Key(name))
	}
	return keys, all
}
