package engine

import (
	"bytes"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// enterTail is how much of the end of a line's text must show before its
// Enter is pressed (settings.enter: after-text): enough to tell the text
// from what was there before, little enough to fit on one row of an input box.
const enterTail = 12

// addTyped adds s, which types text, to the actions. Where the program takes a
// line's Enter only after its text (settings.enter: after-text), text that
// ends lines with Enter is typed line by line: each line's text at once (the
// first now), its Enter once the text shows. It reports whether it split s.
func (e *Engine) addTyped(s Send) bool {
	lines := e.enterApart(s)
	if lines == nil {
		e.addSend(s)
		return false
	}
	var strokes []Stroke
	if e.sources.typing == nil {
		first := s
		first.Data = lines[0]
		e.addSend(first)
	} else {
		// A line before it still waits for its Enter: this one follows.
		strokes = append(strokes, Stroke{Keystrokes: keys.Keystrokes{Data: lines[0]}, own: !s.Person})
	}
	for i, line := range lines {
		if i > 0 && len(line) > 0 {
			strokes = append(strokes, Stroke{Keystrokes: keys.Keystrokes{Data: line}, own: !s.Person})
		}
		text := bytes.TrimRight(line, " ")
		tail := text[max(0, len(text)-enterTail):]
		strokes = append(strokes, Stroke{Keystrokes: keys.Keystrokes{Keys: []keys.Key{"enter"}}, shows: string(tail), own: !s.Person})
	}
	if e.sources.typing != nil {
		e.sources.typing.strokes = append(e.sources.typing.strokes, strokes...)
	} else {
		e.sources.typing = &external{strokes: strokes, strokeAt: e.now}
	}
	return true
}

// enterApart returns the lines of s's text, each without its Enter, when they
// are to be typed apart from their Enter: settings.enter is after-text, s
// types only text (no named keys, no secret, not a menu's number) that ends
// with Enter, and its first line has text. Otherwise it returns nil.
func (e *Engine) enterApart(s Send) [][]byte {
	if e.pb.Settings.Enter != playbooks.EnterAfterText || s.whole || s.DryRun || s.Reply ||
		s.Secret.Source != "" || len(s.Keys) > 0 || !bytes.HasSuffix(s.Data, []byte("\r")) {
		return nil
	}
	lines := bytes.Split(bytes.TrimSuffix(s.Data, []byte("\r")), []byte("\r"))
	if len(bytes.TrimSpace(lines[0])) == 0 {
		return nil
	}
	return lines
}

// showsTyped reports whether tail shows in what the program showed since
// clai last typed: on a row of the screen that changed since, or in the
// output since.
func (e *Engine) showsTyped(tail string) bool {
	text := e.view.text()
	for from := 0; from < len(text); {
		i := bytes.Index(text[from:], []byte(tail))
		if i < 0 {
			return false
		}
		start := from + i
		if !e.stale(text, start, start+len(tail)) {
			return true
		}
		from = start + 1
	}
	return false
}
