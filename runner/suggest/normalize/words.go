package normalize

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one word of a simple command.
type word struct {
	text    string // as typed, quotes and all
	value   string // after quote removal; meaningful only when literal
	literal bool   // the word holds no expansion ($x, $(...), `...`)
}

// quotedWord makes a word from its value, quoting it for the shell where it
// needs it; the fallback splitter, which knows values only, uses it.
func quotedWord(value string) word {
	text, err := syntax.Quote(value, syntax.LangBash)
	if err != nil {
		text = value // a NUL byte: no quoting holds it, and the text is kept as it came
	}
	return word{text: text, value: value, literal: true}
}

// template builds a template and its args, piece by piece.
type template struct {
	pieces []string
	args   []string
	tools  []string
}

// raw adds text to the template as it is, with no word rules.
func (t *template) raw(text string) { t.pieces = append(t.pieces, text) }

// keep adds w as typed, unless its text holds a slot's marker.
func (t *template) keep(w word) {
	if holdsSlot(w.text) {
		t.slot(w, SlotMsg)
		return
	}
	t.raw(w.text)
}

// slot adds the slot s in place of w, and w to the args.
func (t *template) slot(w word, s string) {
	t.pieces = append(t.pieces, s)
	t.args = append(t.args, w.text)
}

// kept are the paths that name the same thing everywhere: kept, never slots.
var kept = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "./...": true}

// auto adds w by the default rule: a flag's "=value" is judged alone
// ("--out=dist" → "--out=<path>"), any other flag ("-9", "-j8") and a word
// with an expansion are kept as typed, and any other word goes in the slot
// Slot gives it, or is kept.
func (t *template) auto(w word) {
	if !w.literal || kept[w.value] {
		t.keep(w)
		return
	}
	if flag, value, ok := splitFlagValue(w); ok {
		t.flagValue(flag, value, Slot(value.value))
		return
	}
	if isFlag(w) {
		t.keep(w)
		return
	}
	if s := Slot(w.value); s != "" {
		t.slot(w, s)
		return
	}
	t.keep(w)
}

// flagValue adds "flag=value" with value in the slot s, or kept when s is "".
func (t *template) flagValue(flag string, value word, s string) {
	if holdsSlot(flag) {
		t.slot(word{text: flag + value.text}, SlotMsg)
		return
	}
	if s == "" || kept[value.value] {
		t.keep(word{text: flag + value.text})
		return
	}
	t.pieces = append(t.pieces, flag+s)
	t.args = append(t.args, value.text)
}

// splitFlagValue splits "--flag=value" into "--flag=" and the value, when the
// flag part is typed plainly (no quotes), so the value's text is what follows.
func splitFlagValue(w word) (string, word, bool) {
	if !strings.HasPrefix(w.text, "-") {
		return "", word{}, false
	}
	eq := strings.IndexByte(w.text, '=')
	if eq < 0 || strings.ContainsAny(w.text[:eq], `'"\$`+"`") {
		return "", word{}, false
	}
	flag := w.text[:eq+1]
	if !strings.HasPrefix(w.value, flag) {
		return "", word{}, false // the flag's text and value differ (a byte the parser drops)
	}
	value := w.value[len(flag):]
	return flag, word{text: w.text[eq+1:], value: value, literal: true}, true
}

// String is the template's text: its pieces joined by single spaces.
func (t *template) String() string { return strings.Join(t.pieces, " ") }

// result is the understood line: the template, its args, the first
// program and whether any program is git.
func (t *template) result() Command {
	c := Command{Template: strings.ReplaceAll(t.String(), " ;", ";"), Args: t.args}
	for _, tool := range t.tools {
		if c.Tool == "" {
			c.Tool = tool
		}
		c.Git = c.Git || tool == "git"
	}
	return c
}
