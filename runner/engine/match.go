package engine

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/exitcode"
)

// maxMatchesPerRead bounds how many steps one read can satisfy, so a playbook whose
// steps match each other's text cannot loop.
const maxMatchesPerRead = 64

// hit is a match of a pattern in the window.
type hit struct {
	start, end int
	// loc holds the submatch indices of the match.
	loc     []int
	pattern *pattern.Pattern
}

// locs holds the submatch indices of the matches found during one call of the
// engine, so that matching allocates nothing: what a call found is used within
// that call, and reset makes the memory free for the next.
type locs struct{ buf []int }

// reset frees the indices found so far.
func (l *locs) reset() { l.buf = l.buf[:0] }

// find returns the leftmost match of any of the matcher's text patterns in text.
// Its indices stay valid until reset.
func (l *locs) find(m *pattern.Matcher, text []byte) (hit, bool) {
	if l.buf == nil {
		l.buf = make([]int, 0, 64)
	}
	best := hit{start: -1}
	for _, p := range m.Patterns {
		if p.Kind == pattern.EOF {
			continue
		}
		free := l.buf[len(l.buf):cap(l.buf)]
		loc := p.FindInto(text, free)
		if loc == nil {
			continue
		}
		if len(loc) <= len(free) {
			// FindInto wrote it to free. (A pattern run by package regexp
			// allocates its own; the room is then unused until reset.)
			l.buf = l.buf[:len(l.buf)+len(loc)]
		}
		if best.start < 0 || loc[0] < best.start {
			best = hit{start: loc[0], end: loc[1], loc: loc, pattern: p}
		}
	}
	return best, best.start >= 0
}

// countMatches counts the matches of m's text patterns in text and returns the
// last one's text.
func countMatches(m *pattern.Matcher, text []byte) (n int, last string) {
	for _, p := range m.Patterns {
		p.FindEach(text, func(loc []int) bool {
			n++
			last = string(text[loc[0]:loc[1]])
			return true
		})
	}
	return n, last
}

// values builds the expression values of a hit in text.
func (e *Engine) values(h *hit, text []byte) playbooks.Values {
	return e.valuesFor(h, text, true)
}

// valuesFor builds the values of a hit as values does; unless all is set, only
// the match and the variables, which is all a plain template reads.
func (e *Engine) valuesFor(h *hit, text []byte, all bool) playbooks.Values {
	v := playbooks.Values{Vars: e.cfg.Vars, Project: e.cfg.Project}
	if h != nil {
		v.SetMatch(h.pattern, text, h.loc, e.texts.string(text[h.start:h.end]))
	}
	if !all {
		return v
	}
	v.Environ, v.State, v.ExitCode = e.cfg.Environ, string(e.state), e.exitCode
	v.Elapsed, v.Idle = e.now.Sub(e.start), e.now.Sub(e.lastOutput)
	v.Fired = e.firings.counts(e.pb.Rules)
	if s := e.currentStep(); s != nil {
		v.Step = playbooks.StepInfo{Name: s.Name, Index: s.Index, Tries: e.steps.tries}
	}
	v.Screen = e.shownScreen()
	return v
}

// evaluate answers what the window holds: the current step's cases first, then the
// rules in file order. Nothing is answered in MANUAL, while a refusal is pending, or
// after the run ended.
func (e *Engine) evaluate() {
	if e.screen != nil {
		if text, changed := e.screen.look(); changed {
			// Redrawn text is scanned for danger as it shows, with the prompt
			// drawn after it.
			e.onDanger(e.screen.shownDanger(e.pb.Danger, text), false)
			if e.result != nil || e.state == Manual {
				return
			}
		}
	}
	if e.asAnswered() {
		// Only fresh text acts: nothing changed since the last answer.
		return
	}
	if e.choosing != nil && e.continueChoosing() {
		return
	}
	if e.refusal != nil {
		e.refuse(false)
		return
	}
	for range maxMatchesPerRead {
		if e.result != nil || e.state == Manual || e.refusal != nil {
			return
		}
		progressed, stop := e.evaluateStep()
		if stop {
			return
		}
		if progressed {
			continue
		}
		e.evaluateRules()
		return
	}
}

// evaluateStep tries the current step. progressed means a step was satisfied without
// sending, so the next one may match the rest of the window; stop means nothing more
// may happen now (an answer was sent or deferred).
func (e *Engine) evaluateStep() (progressed, stop bool) {
	s := e.currentStep()
	if s == nil {
		return false, false
	}
	branches := s.Branches()
	if branches == nil {
		// A step without expect acts at once.
		if !e.canSend() {
			return false, true
		}
		if s.Action != nil && e.twoDialogsHandOver("", stepName(s), "") {
			return false, true
		}
		sent := e.act(s.Action, s.Env, nil, "", stepName(s), "")
		e.advanceStep()
		return !sent, sent
	}
	// The leftmost match wins; the first case listed breaks a tie.
	text := e.view.text()
	var best hit
	var bestCase *playbooks.Case
	for _, c := range branches {
		if h, ok := e.view.find(&e.locs, c.Match, text); ok && (bestCase == nil || h.start < best.start) {
			best, bestCase = h, c
		}
	}
	if bestCase == nil {
		return false, false
	}
	if bestCase.Action != nil && !e.canSend() {
		return false, true
	}
	vals := e.valuesFor(&best, text, !readsOnlyMatch(bestCase.Action))
	matched := e.excerpt(vals.Text)
	if bestCase.Action != nil && e.twoDialogsHandOver("", stepName(s), matched) {
		return false, true
	}
	e.verifier.atQuestion = lastShown(text, best.end)
	e.view.consume(best.end)
	sent := e.act(bestCase.Action, bestCase.Env, &vals, "", stepName(s), matched)
	if bestCase.Repeat {
		e.steps.tries++
		e.steps.since = e.now
	} else {
		e.advanceStep()
	}
	return !sent, sent
}

// evaluateRules fires the first rule whose pattern matches and whose when holds.
// On a screen a rule fires when its pattern appears (one more copy of it on screen
// than before: the same question asked again below the first), so a redraw never
// answers twice.
func (e *Engine) evaluateRules() {
	text := e.view.text()
	if e.screen != nil {
		e.screen.count(e.pb.Rules, text)
	}
	e.gates.begin()
	for i, r := range e.pb.Rules {
		if e.screen != nil && !e.screen.appeared(r) || e.gates.shut(i, text) {
			continue
		}
		h, ok := e.view.find(&e.locs, r.Match, text)
		if !ok {
			continue
		}
		vals := e.valuesFor(&h, text, r.When != nil || !readsOnlyMatch(r.Action))
		if r.When != nil {
			hold, err := r.When.Eval(r.Env, vals)
			if err != nil {
				e.exprFailed(r.Name, "", err)
				return
			}
			if !hold {
				continue
			}
		}
		if r.Limit > 0 && e.firings.byRule[i] >= r.Limit {
			e.emit(Event{Name: EventMatch, Rule: r.Name, Excerpt: e.excerpt(string(text[h.start:h.end])), Reason: "limit reached"})
			e.toManual(ask.Limit, fmt.Sprintf("rule %q reached its limit of %d", r.Name, r.Limit))
			return
		}
		if r.Cooldown > 0 {
			if last, ok := e.firings.last[r]; ok && e.now.Before(last.Add(r.Cooldown)) {
				// Re-armed, so that the rule fires when the wait ends.
				e.rearm(r)
				e.deferUntil(last.Add(r.Cooldown), r.Name, "cooldown")
				return
			}
		}
		if !e.canSend() {
			e.rearm(r)
			return
		}
		// vals.Text is the matched text, already copied out of the window.
		matched := e.excerpt(vals.Text)
		if r.Action != nil && e.twoDialogsHandOver(r.Name, "", matched) {
			return
		}
		e.verifier.atQuestion = lastShown(text, h.end)
		e.view.consume(h.end)
		e.firings.byRule[i]++
		if vals.Fired != nil {
			// The answer's template counts this firing too, as vals.Fired is
			// the engine's map.
			e.firings.counts(e.pb.Rules)
		}
		if r.Cooldown > 0 {
			// Only a cooldown looks at when a rule last fired.
			e.firings.last[r] = e.now
		}
		e.act(r.Action, r.Env, &vals, r.Name, "", matched)
		return
	}
}

// readsOnlyMatch reports whether acting reads nothing of the values but the match and
// the variables (see Template.Plain).
func readsOnlyMatch(a *playbooks.Action) bool {
	return a == nil || a.Text == nil || a.Text.Plain()
}

// canSend reports whether min_send_interval allows a send now, and otherwise defers.
func (e *Engine) canSend() bool {
	if !e.sender.sent {
		return true
	}
	interval := e.pb.Settings.MinSendInterval
	if e.now.Sub(e.sender.last) < interval {
		e.deferUntil(e.sender.last.Add(interval), "", "min_send_interval")
		return false
	}
	return true
}

// verifyAt is when the program must have reacted to the last answer.
func (e *Engine) verifyAt() time.Time { return e.verifier.at(e.sender.last) }

func (e *Engine) deferUntil(t time.Time, rule, why string) {
	if e.sender.wake.Equal(t) {
		return
	}
	e.sender.wake = t
	e.emit(Event{Name: EventDefer, Rule: rule, Reason: fmt.Sprintf("%s until +%s", why, t.Sub(e.start).Round(time.Millisecond))})
}

// act renders and sends an action, and records what matched: one send event, or a
// match event when there is nothing to send. It reports whether anything was sent.
func (e *Engine) act(a *playbooks.Action, env *playbooks.Env, vals *playbooks.Values, rule, step, matched string) bool {
	atQuestion := e.verifier.atQuestion
	e.verifier.atQuestion = false
	if a == nil {
		e.emit(Event{Name: EventMatch, Rule: rule, Step: step, Excerpt: matched})
		return false
	}
	if vals == nil {
		v := e.values(nil, nil)
		vals = &v
	}
	if a.Kind == playbooks.ActChoose {
		return e.choose(a, rule, step, matched)
	}
	var send Send
	var shown string
	switch a.Kind {
	case playbooks.ActSend, playbooks.ActLine:
		// Rendered into the memory the last rendered answer does not use: a
		// retry sends that one again.
		turn := e.sender.turn
		data, err := a.Text.Append(e.sender.answers[turn][:0], env, vals)
		if err != nil {
			e.exprFailed(rule, step, err)
			return false
		}
		if a.Kind == playbooks.ActLine {
			data = append(data, '\r')
		}
		e.sender.answers[turn], e.sender.turn = data, 1-turn
		send, shown = typeText(data), e.texts.string(data)
	case playbooks.ActKeys:
		send = e.pressKeys(a.Keys)
		names := make([]string, len(a.Keys))
		for i, k := range a.Keys {
			names[i] = string(k)
		}
		shown = "keys " + strings.Join(names, " ")
	case playbooks.ActSecret:
		send = typeText([]byte("\r"))
		send.Secret = a.Secret
		shown = fmt.Sprintf("secret %s:%s", a.Secret.Source, a.Secret.Name)
	default:
		e.emit(Event{Name: EventError, Rule: rule, Step: step, Reason: string(a.Kind) + " needs screen matching"})
		e.toManual(ask.Choose, string(a.Kind)+" needs screen matching")
		return false
	}
	e.send(send, shown, rule, step, matched)
	e.verifier.answer = send
	if e.cfg.DryRun {
		return true
	}
	// A line whose Enter waits for its text is not sent again: the Enter
	// goes once the program has read the text.
	e.verifier.expect(e.answerDue(a, atQuestion) && e.enterApart(send) == nil, max(verifyAfter, 2*e.pb.Settings.Settle))
	return true
}

// answerDue reports whether the program must react to the answer just sent, so
// that silence means it was missed and may be sent once more: settings.retry is
// on, the answer is typed text (a key may do its work without a sign) and it
// answered a question that was the last thing shown. Whatever the program shows
// afterwards is a reaction, and so is silence with echo off (see Echo).
func (e *Engine) answerDue(a *playbooks.Action, atQuestion bool) bool {
	return e.pb.Settings.Retry && atQuestion && a.Kind != playbooks.ActKeys
}

// lastShown reports whether the text from end on is blank: what ends there is
// the last thing the program showed.
func lastShown(text []byte, end int) bool {
	return len(bytes.TrimSpace(text[end:])) == 0
}

// exprFailed ends the run when a template or a when fails at run time (an
// unset environment variable, a group past the last): the playbook cannot go
// on as written, and nothing of the answer is typed.
func (e *Engine) exprFailed(rule, step string, err error) {
	why := e.redact(err.Error())
	e.emit(Event{Name: EventError, Rule: rule, Step: step, Reason: why})
	where := "step " + step
	if rule != "" {
		where = fmt.Sprintf("rule %q", rule)
	}
	e.finish(Failed, exitcode.Failed, where+": "+why, true)
}

// typeText is a Send that types data as it is.
func typeText(data []byte) Send {
	return Send{Keystrokes: keys.Keystrokes{Data: data}}
}

// pressKeys is a Send that presses named keys, for the driver to encode in the
// cursor mode the program asked for.
func (e *Engine) pressKeys(ks []keys.Key) Send {
	return Send{Keystrokes: keys.Keystrokes{Keys: ks, AppCursor: e.appCursor()}}
}

// press is a Send that presses one key n times, in the engine's memory for it.
func (e *Engine) press(k keys.Key, n int) Send {
	e.sender.moves = e.sender.moves[:0]
	for range n {
		e.sender.moves = append(e.sender.moves, k)
	}
	return e.pressKeys(e.sender.moves)
}

// send emits a Send (or a would-send in a dry run) and makes the window stale.
func (e *Engine) send(s Send, shown, rule, step, matched string) {
	s.DryRun = e.cfg.DryRun
	name := EventSend
	if s.DryRun {
		name = EventWouldSend
	}
	shown = e.redact(shown)
	e.emit(Event{Name: name, Rule: rule, Step: step, Sent: shown, Excerpt: matched})
	e.addTyped(s)
	if s.DryRun && !e.cfg.Replay && !e.cfg.Interactive {
		// Nothing reached the program: a live one waits for the answer, which
		// ends a headless run; in a terminal the person answers instead, and a
		// replay goes on as the recorded program did.
		e.dry.waiting, e.dry.answer = true, shown
	}
	e.sender.last, e.sender.sent = e.now, true
	e.sender.wake = time.Time{}
	// Only fresh text acts from now on: what was shown before the answer
	// never answers again.
	e.prompt.answeredLine = e.askedLine(e.view.text())
	e.view.answered(true)
}

// excerpt is the end of s, at most 200 bytes, cut on a character boundary and
// marked "…" where it was cut.
func excerpt(s string) string {
	const n = 200
	if len(s) > n {
		return "…" + lastChars(s, n)
	}
	return s
}
