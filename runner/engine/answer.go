package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// An answer to the open question, from anyone: checked against the question
// and the screen it was given for, refused if it does not fit, else typed.

// formsGiven counts the forms an answer is given in: a text, an option to
// choose, options to choose, keys. An answer takes exactly one.
func formsGiven(a ask.Answer) int {
	n := 0
	for _, set := range []bool{a.Text != nil, a.Choose != "", len(a.Choices) > 0, len(a.Keys) > 0} {
		if set {
			n++
		}
	}
	return n
}

// maxAnswerText bounds a text answer.
const maxAnswerText = 4 << 10

// Answer observes a person's answer to a question, from a terminal elsewhere,
// the command line or a web page. An answer that fits is typed as the
// playbook's own answers are (masked in events, after min_send_interval) and
// closes the question; the Sent says what it typed. Otherwise the error is an
// *ask.Refusal and nothing is typed: the run has ended, no question or another
// one is open, the screen changed since the answer was given, or the answer is
// not exactly one of a line, an option or keys that exist.
//
// In MANUAL the answer is the person's decision, also after a danger rule
// handed over: it is typed, the event says whose decision it was and on what,
// and the run stays in MANUAL (nothing is sent automatically again); once the
// output settles, a new question opens. At a prompt the run goes on.
func (e *Engine) Answer(now time.Time, a ask.Answer) ([]Action, ask.Sent, error) {
	e.begin(now)
	var send Send
	var strokes []Stroke
	var shown string
	var refusal *ask.Refusal
	x := e.sources.asking
	if x != nil && e.result == nil && (a.Question == "" || a.Question == e.asker.q.ID) {
		strokes, shown, refusal = e.externalAnswer(a)
	} else {
		send, shown, refusal = e.check(a)
	}
	if refusal != nil {
		e.emit(Event{Name: EventRefused, Reason: refusal.Code + ": " + refusal.Reason, Channel: a.Channel, By: a.By})
		return e.end(), ask.Sent{}, refusal
	}
	shown = e.redact(shown)
	decision := "answered by " + who(a)
	if e.state == Manual {
		decision = fmt.Sprintf("a person's decision (%s) after the hand-over: %s", who(a), e.handOver.cause)
		e.handOver.decidedBy = who(a)
	}
	q := e.closed(ask.Closed{How: ask.Answered, By: a.By, Channel: a.Channel, Sent: shown})
	e.emit(Event{Name: EventAnswer, Question: q, Sent: shown, Reason: decision, Channel: a.Channel, By: a.By})
	if strokes != nil {
		e.typeStrokes(x, strokes)
	} else if e.sender.sent && now.Before(e.sender.last.Add(e.pb.Settings.MinSendInterval)) {
		// Typed once min_send_interval has passed, as a rule's answer would be.
		e.sender.held = &send
		e.deferUntil(e.sender.last.Add(e.pb.Settings.MinSendInterval), "", "min_send_interval")
	} else {
		e.typeAnswer(send)
	}
	e.answeredBy(decision)
	return e.end(), ask.Sent{Question: q.ID, Sent: shown}, nil
}

// who names who answered and through what.
func who(a ask.Answer) string {
	switch {
	case a.By != "" && a.Channel != "":
		return a.By + " through " + a.Channel
	case a.By != "":
		return a.By
	case a.Channel != "":
		return "a person through " + a.Channel
	}
	return "a person"
}

// answeredBy moves the run on after a person's answer: a prompt is answered;
// in MANUAL the run stays there and asks again once the output settles.
func (e *Engine) answeredBy(decision string) {
	e.verifier.pending = false
	e.choosing = nil
	switch e.state {
	case Prompting:
		e.setState(Running, decision)
	case Manual:
		e.handOver.since = e.now
		e.askLater(e.asker.why, e.asker.detail)
	}
}

// typeAnswer types a person's answer: it is never a would-send, as a person's
// keys at the terminal are not, and only what the program shows after it acts.
func (e *Engine) typeAnswer(s Send) {
	s.Person = true
	e.addTyped(s)
	e.sender.last, e.sender.sent = e.now, true
	e.prompt.answeredLine = e.askedLine(e.view.text())
	e.view.answered(false)
}

// typeOwn types a keystroke of clai's own answer that waited (the Enter of a
// line typed apart from it): what was shown before it no longer acts.
func (e *Engine) typeOwn(s Send) {
	e.addSend(s)
	e.sender.last, e.sender.sent = e.now, true
	e.sender.wake = time.Time{}
	e.prompt.answeredLine = e.askedLine(e.view.text())
	e.view.answered(true)
}

// check returns what an answer types and how it shows, or why it is refused.
func (e *Engine) check(a ask.Answer) (Send, string, *ask.Refusal) {
	refuse := func(code, format string, args ...any) (Send, string, *ask.Refusal) {
		return Send{}, "", &ask.Refusal{Code: code, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case e.result != nil:
		return refuse(ask.RefusedEnded, "the run has ended")
	case e.asker.q == nil && a.Question != "" && e.asked(a.Question):
		return refuse(ask.RefusedClosed, "question %s was closed", a.Question)
	case e.asker.q == nil:
		return refuse(ask.RefusedNoQuestion, "no question is open")
	case a.Question != "" && a.Question != e.asker.q.ID && e.asked(a.Question):
		return refuse(ask.RefusedClosed, "question %s was closed; the open one is %s", a.Question, e.asker.q.ID)
	case a.Question != "" && a.Question != e.asker.q.ID:
		return refuse(ask.RefusedNoQuestion, "no question %q; the open one is %s", a.Question, e.asker.q.ID)
	}
	switch {
	case formsGiven(a) != 1:
		return refuse(ask.RefusedBadAnswer, "an answer is exactly one of a text, an option to choose, or keys")
	case len(a.Choices) > 0:
		return refuse(ask.RefusedBadAnswer, "question %s takes one option (choose), not several", e.asker.q.ID)
	}
	want := a.ScreenHash
	if want == "" {
		want = e.asker.q.ScreenHash
	}
	if _, now := e.Shown(); now != want {
		return refuse(ask.RefusedStale, "the screen changed since the answer was given (screen %s, now %s)", want, now)
	}
	switch {
	case a.Text != nil:
		return e.textAnswer(*a.Text)
	case len(a.Keys) > 0:
		return e.keysAnswer(a.Keys)
	}
	return e.chooseAnswer(a.Choose)
}

// asked reports whether id names a question this run asked.
func (e *Engine) asked(id string) bool {
	var n int
	if _, err := fmt.Sscanf(id, "q%d", &n); err != nil || fmt.Sprintf("q%d", n) != id {
		return false
	}
	return n >= 1 && n <= e.asker.seq
}

// textAnswer types a line, followed by Enter, when it is one that
// ask.CheckText takes (the rule for people, models and learned answers).
func (e *Engine) textAnswer(text string) (Send, string, *ask.Refusal) {
	if err := ask.CheckText(text); err != nil {
		return Send{}, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: err.Error()}
	}
	data := append([]byte(text), '\r')
	return typeText(data), string(data), nil
}

// keysAnswer presses named keys.
func (e *Engine) keysAnswer(names []string) (Send, string, *ask.Refusal) {
	if len(names) > maxAnswerText {
		return Send{}, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: "too many keys"}
	}
	ks := make([]keys.Key, len(names))
	for i, n := range names {
		ks[i] = keys.Key(n)
		if !keys.Known(ks[i]) {
			return Send{}, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: fmt.Sprintf("unknown key %q (see docs/playbook.md, keys)", n)}
		}
	}
	return Send{Keystrokes: keys.Keystrokes{Keys: ks, AppCursor: e.appCursor()}}, "keys " + strings.Join(names, " "), nil
}

// chooseAnswer picks an option of the question by its label (see pickOption):
// an entry of the menu on screen is reached as a person would, with its
// number or the arrow keys and Enter; a [y/N]-style choice is typed as a line.
func (e *Engine) chooseAnswer(label string) (Send, string, *ask.Refusal) {
	var labels []string
	for _, o := range e.asker.q.Options {
		labels = append(labels, o.Label)
	}
	text := e.view.text()
	menus := e.menus(text)
	var names [][]string
	if len(menus) > 0 && len(menus[0].options) == len(labels) {
		names = make([][]string, len(labels))
		for i, o := range menus[0].options {
			names[i] = optionNames(o)
		}
	}
	pick, why := pickOption(labels, names, label)
	if pick < 0 {
		return Send{}, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: why}
	}
	shown := fmt.Sprintf("choose %q", labels[pick])
	if why := e.twoDialogs(text); why != "" {
		return Send{}, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: why + "; answer with keys"}
	}
	if len(menus) == 0 {
		return typeText([]byte(labels[pick] + "\r")), shown, nil
	}
	m := menus[0]
	o, current := m.options[pick], m.current()
	switch {
	case current < 0 && o.number != "":
		number := typeText([]byte(o.number + "\r"))
		number.whole = true // a menu's key, not a line of text
		return number, shown, nil
	case current < 0:
		return Send{}, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: fmt.Sprintf("option %q has no number and no option is marked as the current one: send keys", labels[pick])}
	}
	key, n := m.moves(current, pick)
	ks := make([]keys.Key, 0, n+1)
	for range n {
		ks = append(ks, key)
	}
	ks = append(ks, "enter")
	return Send{Keystrokes: keys.Keystrokes{Keys: ks, AppCursor: e.appCursor()}}, shown, nil
}

// answeredAtTerminal closes the open question as answered by the person at
// clai's terminal, who typed n bytes (never seen): from now on they drive.
func (e *Engine) answeredAtTerminal(n int) {
	e.asker.pending = false
	if e.asker.q == nil {
		return
	}
	q := e.closed(ask.Closed{How: ask.Answered, By: e.cfg.Person, Channel: ask.ChannelTerminal})
	e.emit(Event{Name: EventAnswer, Question: q, Bytes: n, Reason: "typed at the terminal", Channel: ask.ChannelTerminal, By: e.cfg.Person})
}

// typeHeld types the person's answer min_send_interval held back.
func (e *Engine) typeHeld() {
	s := *e.sender.held
	e.sender.held = nil
	e.typeAnswer(s)
	if e.state == Manual {
		// The next question waits for what the program does with it.
		e.handOver.since = e.now
	}
}

// optionNames returns the other names an option of a menu on screen answers
// to besides its label: a tagged item's tag and item ("prod" and "the real
// thing" of "prod     the real thing", as dialog and whiptail draw them).
func optionNames(o option) []string {
	if o.alt == "" || o.alt == o.label || !strings.HasSuffix(o.label, o.alt) {
		return nil
	}
	return []string{strings.TrimSpace(strings.TrimSuffix(o.label, o.alt)), strings.TrimSpace(o.alt)}
}

// pickOption returns the index of the option an answer names, or -1 and why:
// its whole label (exactly, then in any case), then one of its other names
// (names[i], the tag or the item of a tagged option), then a prefix of a label
// or a name that only one option has. A prefix several options share is
// refused, with them.
func pickOption(labels []string, names [][]string, answer string) (int, string) {
	all := func(i int) []string {
		if i < len(names) {
			return append([]string{labels[i]}, names[i]...)
		}
		return []string{labels[i]}
	}
	for _, same := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		strings.EqualFold,
	} {
		for _, whole := range []bool{true, false} {
			for i := range labels {
				names := all(i)
				if whole {
					names = names[:1]
				}
				for _, n := range names {
					if same(n, answer) {
						return i, ""
					}
				}
			}
		}
	}
	if answer != "" {
		var hits []int
		for i := range labels {
			for _, n := range all(i) {
				if len(n) >= len(answer) && strings.EqualFold(n[:len(answer)], answer) {
					hits = append(hits, i)
					break
				}
			}
		}
		switch len(hits) {
		case 1:
			return hits[0], ""
		case 0:
		default:
			var seen []string
			for _, i := range hits {
				seen = append(seen, labels[i])
			}
			return -1, fmt.Sprintf("%q names more than one option (%s): give more of it", answer, strings.Join(seen, " | "))
		}
	}
	return -1, fmt.Sprintf("no option %q (the options: %s)", answer, strings.Join(labels, " | "))
}
