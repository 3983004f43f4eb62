// Package keys is the one table of the keys clai can type: each key's name (as a
// playbook writes it), the bytes a terminal sends for it, in normal and in
// application-cursor mode, and the name tmux's send-keys knows it by.
//
// A key travels by name from the playbook to the driver, which encodes it: a
// pseudo-terminal gets the key's bytes, a tmux pane its tmux name, so that tmux
// encodes it as the pane's program asked.
package keys

import (
	"fmt"
	"sync"
)

// Key is a named key: "enter", "down", "ctrl-c", "f5".
type Key string

// spec is one row of the table.
type spec struct {
	name Key
	// seq is what a terminal sends for the key; app is what it sends in
	// application cursor mode (DECCKM), when that differs.
	seq, app string
	// tmux is the key's name for tmux's send-keys.
	tmux string
	// also lists other sequences terminals send for the same key.
	also []string
	// typedOnly marks a key a person may type that playbooks do not name.
	typedOnly bool
}

// table lists every key, the ones playbooks name in documentation order first.
// Where two keys send the same bytes (tab and ctrl-i), the first is the one
// those bytes are read as.
func table() []spec {
	t := []spec{
		{name: "enter", seq: "\r", tmux: "Enter"},
		{name: "tab", seq: "\t", tmux: "Tab"},
		{name: "esc", seq: "\x1b", tmux: "Escape"},
		{name: "up", seq: "\x1b[A", app: "\x1bOA", tmux: "Up"},
		{name: "down", seq: "\x1b[B", app: "\x1bOB", tmux: "Down"},
		{name: "left", seq: "\x1b[D", app: "\x1bOD", tmux: "Left"},
		{name: "right", seq: "\x1b[C", app: "\x1bOC", tmux: "Right"},
		{name: "home", seq: "\x1b[H", app: "\x1bOH", tmux: "Home", also: []string{"\x1b[1~"}},
		{name: "end", seq: "\x1b[F", app: "\x1bOF", tmux: "End", also: []string{"\x1b[4~"}},
		{name: "pgup", seq: "\x1b[5~", tmux: "PPage"},
		{name: "pgdn", seq: "\x1b[6~", tmux: "NPage"},
		{name: "backspace", seq: "\x7f", tmux: "BSpace"},
		{name: "delete", seq: "\x1b[3~", tmux: "DC"},
		{name: "space", seq: " ", tmux: "Space"},
	}
	for c := byte('a'); c <= 'z'; c++ {
		t = append(t, spec{name: Key("ctrl-" + string(c)), seq: string([]byte{c - 'a' + 1}), tmux: "C-" + string(c)})
	}
	fn := []string{"\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS", "\x1b[15~", "\x1b[17~", "\x1b[18~", "\x1b[19~", "\x1b[20~", "\x1b[21~", "\x1b[23~", "\x1b[24~"}
	for i, seq := range fn {
		t = append(t, spec{name: Key(fmt.Sprintf("f%d", i+1)), seq: seq, tmux: fmt.Sprintf("F%d", i+1)})
	}
	return append(t,
		spec{name: "insert", seq: "\x1b[2~", tmux: "IC", typedOnly: true},
		spec{name: "backtab", seq: "\x1b[Z", tmux: "BTab", typedOnly: true},
	)
}

// lookups are the table by key name, by every sequence that reads as a key,
// the names playbooks may use, and the length of the longest sequence.
type lookups struct {
	known   map[Key]spec
	bySeq   map[string]Key
	names   []string
	longest int
}

// index is the lookups, built on first use (not at start-up, which every
// command of clai pays for) and only read.
var index = sync.OnceValue(func() lookups { return build(table()) })

// build makes the lookups of the table.
func build(t []spec) lookups {
	l := lookups{known: make(map[Key]spec, len(t)), bySeq: make(map[string]Key, 2*len(t))}
	for _, s := range t {
		l.known[s.name] = s
		if !s.typedOnly {
			l.names = append(l.names, string(s.name))
		}
		for _, seq := range append([]string{s.seq, s.app}, s.also...) {
			if _, dup := l.bySeq[seq]; seq == "" || dup || !isControl(seq[0]) {
				continue
			}
			l.bySeq[seq] = s.name
			l.longest = max(l.longest, len(seq))
		}
	}
	return l
}

// isControl reports whether c is a control byte: a sequence that starts with
// one is a key, while text (space included) is typed as it is.
func isControl(c byte) bool { return c < 0x20 || c == 0x7f }

// Names lists the key names a playbook may use, in documentation order.
func Names() []string { return append([]string(nil), index().names...) }

// Known reports whether k is a key a playbook may name.
func Known(k Key) bool {
	s, ok := index().known[k]
	return ok && !s.typedOnly
}

// Bytes returns what a terminal sends for the key, or nil for an unknown key.
// appCursor selects the application-cursor-mode form of the arrow, home and end
// keys (ESC O A instead of ESC [ A), which full-screen programs switch on.
func (k Key) Bytes(appCursor bool) []byte {
	return k.AppendBytes(nil, appCursor)
}

// AppendBytes appends what a terminal sends for the key to dst (see Bytes).
func (k Key) AppendBytes(dst []byte, appCursor bool) []byte {
	s, ok := index().known[k]
	if !ok {
		return dst
	}
	if appCursor && s.app != "" {
		return append(dst, s.app...)
	}
	return append(dst, s.seq...)
}

// Tmux returns the name tmux's send-keys knows the key by ("Enter", "C-c"), or ""
// for an unknown key.
func (k Key) Tmux() string { return index().known[k].tmux }

// Read returns the key b starts with and the length of its sequence, or "" and
// 0 when b starts with text (or a control byte that is no key). A lone ESC is
// the esc key only when no longer sequence follows it.
func Read(b []byte) (Key, int) {
	if len(b) == 0 || !isControl(b[0]) {
		return "", 0
	}
	l := index()
	for n := min(len(b), l.longest); n >= 1; n-- {
		if k, ok := l.bySeq[string(b[:n])]; ok {
			return k, n
		}
	}
	return "", 0
}

// Keystrokes is what clai types into a program in one go: Data as it is, then
// Keys, which the driver encodes as its terminal needs them.
type Keystrokes struct {
	// Data is typed byte for byte ("yes\r").
	Data []byte
	// Keys are named keys typed after Data. Read only: they may be the
	// playbook's own.
	Keys []Key
	// AppCursor is set when the program asked for application cursor keys
	// (DECCKM), so that a terminal sends ESC O A for up instead of ESC [ A.
	AppCursor bool
}

// AppendBytes appends what a terminal gets for the keystrokes to dst: Data,
// then each key's bytes.
func (k Keystrokes) AppendBytes(dst []byte) []byte {
	dst = append(dst, k.Data...)
	for _, key := range k.Keys {
		dst = key.AppendBytes(dst, k.AppCursor)
	}
	return dst
}
