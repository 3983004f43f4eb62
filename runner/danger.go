package runner

import (
	"fmt"
	"time"

	"github.com/clai-sh/clai/playbooks"
)

// dangerScanner runs the danger rules over every byte of output exactly once. It keeps
// a tail of earlier text, so a dangerous line split across two reads is still seen,
// and remembers for each rule where its last match ended, so the same text never
// fires twice.
type dangerScanner struct {
	limit int
	buf   []byte
	from  []int
	locs  locs
}

// scan appends text and returns, for each rule, whether it matched new text, with
// the matched text.
func (d *dangerScanner) scan(rules []*playbooks.Danger, text []byte) (hits []dangerHit) {
	if len(rules) == 0 || len(text) == 0 {
		return nil
	}
	if d.from == nil {
		d.from = make([]int, len(rules))
	}
	d.buf = append(d.buf, text...)
	buf, textAt := d.buf, len(d.buf)-len(text)
	for i, r := range rules {
		for d.from[i] < len(buf) {
			// Each hit is used up before the next find.
			d.locs.reset()
			h, ok := d.locs.find(r.Match, buf[d.from[i]:])
			if !ok {
				break
			}
			start, end := d.from[i]+h.start, d.from[i]+h.end
			hits = append(hits, dangerHit{rule: r, text: string(buf[start:end]), at: start - textAt})
			d.from[i] = max(end, start+1)
		}
	}
	// Keep only the tail a pattern may still need.
	if over := len(d.buf) - d.limit; over > 0 {
		n := copy(d.buf, d.buf[over:])
		d.buf = d.buf[:n]
		for i := range d.from {
			d.from[i] = max(0, d.from[i]-over)
		}
	}
	return hits
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

// scanDanger runs the danger rules on new text, before any rule or step sees it.
//
// On a screen the same dangerous text usually reaches both the stream and the
// screen, often more than once (a dialog and its transcript line): a rule counts
// once while its text is on screen, and once for all the stream shows of it until
// the screen is next looked at.
func (e *Engine) scanDanger(text []byte) {
	hits := e.notRedrawn(e.danger.scan(e.pb.Danger, text))
	if e.scr != nil {
		kept := hits[:0]
		for _, h := range hits {
			if e.dangerShown[h.rule] == 0 && !e.dangerStreamed[h.rule] {
				e.dangerStreamed[h.rule] = true
				kept = append(kept, h)
			}
		}
		hits = kept
	}
	e.onDanger(hits)
}

// scanScreenDanger runs the danger rules on the visible screen, where a program
// that draws with cursor jumps shows text the stream never holds. A rule counts
// once each time its text appears (one more copy of it on screen than before),
// unless the stream showed it first.
func (e *Engine) scanScreenDanger(text []byte) {
	var hits []dangerHit
	for _, r := range e.pb.Danger {
		copies, last := countMatches(r.Match, text)
		if copies > e.dangerShown[r] && (e.dangerShown[r] > 0 || !e.dangerStreamed[r]) {
			hits = append(hits, dangerHit{rule: r, text: last})
		}
		e.dangerShown[r] = copies
		e.dangerStreamed[r] = false
	}
	e.onDanger(hits)
}

// onDanger records danger hits and carries out the strongest.
func (e *Engine) onDanger(hits []dangerHit) {
	if len(hits) == 0 {
		return
	}
	var worst *dangerHit
	for i := range hits {
		h := &hits[i]
		e.fired[h.rule.Name]++
		e.emit(Event{Name: "danger", Rule: h.rule.Name, Excerpt: excerpt(h.text), Reason: string(h.rule.Action)})
		if worst == nil || severity(h.rule.Action) > severity(worst.rule.Action) {
			worst = h
		}
	}
	if e.state == Manual || e.result != nil {
		return
	}
	reason := fmt.Sprintf("danger rule %q matched %q", worst.rule.Name, excerpt(worst.text))
	switch worst.rule.Action {
	case playbooks.DangerAbort:
		e.finish(Aborted, ExitDanger, reason, true)
	case playbooks.DangerManual:
		e.toManual(reason)
	case playbooks.DangerDeny:
		// The refusal answers the prompt that follows the dangerous text, in place of
		// whatever a step or rule would have answered; until it is sent nothing else is.
		e.refusal = worst.rule
		e.wake = time.Time{}
		e.window = e.window[:0]
		e.emit(Event{Name: "defer", Rule: worst.rule.Name, Reason: "the refusal waits for the prompt"})
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
	vals := e.values(nil, nil)
	e.act(r.Refusal, r.Env, &vals, r.Name, "", excerpt(lastLine(e.view())))
}

// promptPending reports whether the window shows a prompt.
func (e *Engine) promptPending(settled bool) bool {
	text := e.view()
	if s := e.currentStep(); s != nil {
		for _, c := range s.Branches() {
			if _, ok := e.locs.find(c.Match, text); ok {
				return true
			}
		}
	}
	for _, r := range e.pb.Rules {
		if _, ok := e.locs.find(r.Match, text); ok {
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
