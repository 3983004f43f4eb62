package engine

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/exitcode"
)

// dangerScanner runs the danger rules over every byte of output exactly once. It keeps
// a tail of earlier text, so a dangerous line split across two reads is still seen,
// and remembers for each rule where its last match ended, so the same text never
// fires twice.
//
// A read searches again only the earlier text a match not yet found could begin
// in: one that holds new text, or ends so near it that the new bytes change how it
// reads. Where a rule's matches are bounded (see pattern.Reach), that is its
// longest match before the new text, or the line the new text continues; otherwise
// it is all the tail kept, at most the window. So the work of a read is linear in
// the read plus that reach, which the window bounds.
type dangerScanner struct {
	limit int
	buf   []byte
	from  []int
	reach []pattern.Reach
	// lastNL is where the last newline in buf is, or -1.
	lastNL int
	locs   locs
	// searched counts the bytes the searches began before the end of: the
	// measure of the work of scanning.
	searched int
}

// scan appends text and returns, for each rule, whether it matched new text, with
// the matched text.
func (d *dangerScanner) scan(rules []*playbooks.Danger, text []byte) (hits []dangerHit) {
	if len(rules) == 0 || len(text) == 0 {
		return nil
	}
	if d.from == nil {
		d.from = make([]int, len(rules))
		d.reach = make([]pattern.Reach, len(rules))
		for i, r := range rules {
			d.reach[i] = r.Match.Reach()
		}
		d.lastNL = -1
	}
	old, lineStart := len(d.buf), d.lastNL+1
	d.buf = append(d.buf, text...)
	if i := bytes.LastIndexByte(text, '\n'); i >= 0 {
		d.lastNL = old + i
	}
	buf := d.buf
	for i, r := range rules {
		at := d.resume(i, old, lineStart)
		for at < len(buf) {
			d.searched += len(buf) - at
			// Each hit is used up before the next find.
			d.locs.reset()
			h, ok := d.locs.find(r.Match, buf[at:])
			if !ok {
				break
			}
			start, end := at+h.start, at+h.end
			hits = append(hits, dangerHit{rule: r, text: string(buf[start:end]), at: start - old})
			d.from[i] = max(end, start+1)
			at = d.from[i]
		}
	}
	// Keep only the tail a pattern may still need.
	if over := len(d.buf) - d.limit; over > 0 {
		n := copy(d.buf, d.buf[over:])
		d.buf = d.buf[:n]
		for i := range d.from {
			d.from[i] = max(0, d.from[i]-over)
		}
		d.lastNL = max(-1, d.lastNL-over)
	}
	return hits
}

// resume returns where the search for rule i's new matches begins, once text was
// added at old: the earliest place a match not found yet can begin. Any match
// that ends before old-(UTFMax-1) was there before the new text (the character
// after it was whole), and the search of it found none after from[i]. A match
// that holds no newline begins after the last newline before old (lineStart). A
// match that may look at the text before it (^, \b) is searched from from[i], as
// before: a search that begins later would read its start as the start of the text.
func (d *dangerScanner) resume(i, old, lineStart int) int {
	from, reach := d.from[i], d.reach[i]
	if reach.LooksBack {
		return from
	}
	at := from
	if reach.MaxLen >= 0 {
		at = max(at, old-(utf8.UTFMax-1)-reach.MaxLen)
	}
	if reach.OneLine {
		at = max(at, lineStart)
	}
	return runeStart(d.buf, at, from)
}

// runeStart returns the start of the character of buf that holds the byte at i,
// or floor if that is before floor: a search beginning there reads the
// characters after it as a search of all of buf does.
func runeStart(buf []byte, i, floor int) int {
	if i <= floor || i >= len(buf) || utf8.RuneStart(buf[i]) {
		return i
	}
	for j := i - 1; j >= max(floor, i-(utf8.UTFMax-1)); j-- {
		if utf8.RuneStart(buf[j]) {
			// A valid character is the only one longer than a byte.
			if _, size := utf8.DecodeRune(buf[j:]); j+size > i {
				return j
			}
			return i
		}
	}
	return i
}

type dangerHit struct {
	rule *playbooks.Danger
	text string
	// at is where the match starts in the text scanned (below 0 in text
	// scanned before).
	at int
}

// severity orders danger actions: the strongest of several hits wins.
func severity(a playbooks.DangerAction) int {
	switch a {
	case playbooks.DangerAbort:
		return 3
	case playbooks.DangerManual:
		return 2
	}
	return 1
}

// scanDanger runs the danger rules on new text, before any rule or step sees
// it; a screen keeps the hits that count (see screenOnly.streamedDanger).
func (e *Engine) scanDanger(text []byte) {
	hits := e.notRedrawn(e.danger.scan(e.pb.Danger, text), text)
	if len(hits) > 0 && e.screen != nil {
		hits = e.screen.streamedDanger(hits)
	}
	if len(hits) > 0 {
		e.onDanger(hits, true)
	}
}

// onDanger records danger hits and carries out the strongest. added says that
// the hits are in text the view is about to add: a deny's refusal then answers
// a prompt in what comes after it, not one shown before.
func (e *Engine) onDanger(hits []dangerHit, added bool) {
	if len(hits) == 0 {
		return
	}
	var worst *dangerHit
	for i := range hits {
		h := &hits[i]
		e.firings.byName[h.rule.Name]++
		h.text = e.excerpt(h.text)
		e.emit(Event{Name: EventDanger, Rule: h.rule.Name, Excerpt: h.text, Reason: string(h.rule.Action)})
		if worst == nil || severity(h.rule.Action) > severity(worst.rule.Action) {
			worst = h
		}
	}
	reason := fmt.Sprintf("danger rule %q matched %q", worst.rule.Name, worst.text)
	if e.state == Manual && e.result == nil && e.handOver.decidedBy != "" && worst.rule.Action == playbooks.DangerManual {
		// A new hand-over while a person drives: what they decided was
		// about the one before, and this one waits for them again.
		e.handOver.decidedBy, e.handOver.cause = "", reason
	}
	if e.state == Manual || e.result != nil {
		return
	}
	switch worst.rule.Action {
	case playbooks.DangerAbort:
		e.finish(Aborted, exitcode.Danger, reason, true)
	case playbooks.DangerManual:
		e.toManual(ask.Danger, reason)
	case playbooks.DangerDeny:
		// The refusal answers the prompt that follows the dangerous text, in place of
		// whatever a step or rule would have answered; until it is sent nothing else is.
		e.refusal = worst.rule
		e.sender.wake = time.Time{}
		if added {
			e.view.denied()
		}
		e.emit(Event{Name: EventDefer, Rule: worst.rule.Name, Reason: "the refusal waits for the prompt"})
	}
}

// refuse sends the pending refusal if the program now waits at a prompt: a step or
// rule pattern matches, or the generic detector (once the output settled) sees one.
func (e *Engine) refuse(settled bool) {
	r := e.refusal
	if r == nil || e.state == Manual || e.result != nil {
		return
	}
	if !e.promptPending(settled) {
		return
	}
	if !e.canSend() {
		return
	}
	e.refusal = nil
	matched := e.excerpt(lastLine(e.view.text()))
	if e.twoDialogsHandOver(r.Name, "", matched) {
		return
	}
	vals := e.values(nil, nil)
	e.act(r.Refusal, r.Env, &vals, r.Name, "", matched)
}

// promptPending reports whether the window shows a prompt not yet answered:
// fresh text, as a step or rule would see it.
func (e *Engine) promptPending(settled bool) bool {
	text := e.view.text()
	if s := e.currentStep(); s != nil {
		for _, c := range s.Branches() {
			if _, ok := e.view.find(&e.locs, c.Match, text); ok {
				return true
			}
		}
	}
	for _, r := range e.pb.Rules {
		if _, ok := e.view.find(&e.locs, r.Match, text); ok {
			return true
		}
	}
	return settled && detectPrompt(text) != ""
}

func lastLine(b []byte) string {
	if l := lastLines(b, 1); len(l) > 0 {
		return l[0]
	}
	return ""
}

// LastLine returns the last line of what the engine matches against: the
// window of the stream, or the screen.
func (e *Engine) LastLine() string { return lastLine(e.view.text()) }
