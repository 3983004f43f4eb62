package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// The engine opens a question where a person is needed: at PROMPTING, and in
// MANUAL once the output has settled after the hand-over. It closes it when an
// answer is typed (Answer, or the person types at the terminal), when the
// program moves on by itself, or when the run ends. An answer is checked
// against the open question and the screen it was given for; one that does not
// fit is refused and typed never.

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

// choiceMark is a [y/N]-style choice at the end of a question: its letters or
// words, between "/".
var choiceMark = &lazyre.Regexp{Expr: `[\[(]\s*([A-Za-z]{1,8}(?:\s*/\s*[A-Za-z]{1,8}){1,5})\s*[\])]\s*[?:]?\s*$`}

// Question returns the open question, or nil. Its value is not changed later:
// a question that closes is a new value, in the event that closes it.
func (e *Engine) Question() *ask.Question { return e.asker.q }

// Shown returns what a person sees now, secrets masked: the screen in screen
// matching, else the tail of the output; and its hash, which a question and an
// answer carry so that an answer for another screen is refused.
//
// While a question is open its prompt is what the hash stands for: the
// question stays open only while the region that asks stays as it was (see
// promptStands), so every screen shown meanwhile has the question's hash, and
// a clock or a spinner elsewhere makes no answer stale.
func (e *Engine) Shown() (text, hash string) {
	text = strings.TrimRight(e.view.tail(e.redact), " \n")
	if e.asker.q != nil {
		return text, e.asker.q.ScreenHash
	}
	return text, shownHash(text)
}

// shownHash is the hash of what a person sees.
func shownHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// promptKey is the region of the view that asks, as it shows now: the line
// that asks, the entries of a menu below it as they show (with the mark of
// the one the cursor is on), and, on a screen, the row the cursor waits on.
// A question is this region: what changes elsewhere (a clock, a spinner, a
// status line) leaves it as it is.
func (e *Engine) promptKey() string {
	text := e.view.text()
	line := e.askedLine(e.view.promptText())
	var b strings.Builder
	b.WriteString(line)
	b.WriteByte(0)
	if e.screen != nil {
		b.Write(e.screen.cursorRow(text))
	}
	for _, l := range lastLines(text, 12) {
		if strings.TrimSpace(unframe(l)) == line {
			break
		}
		if isOption(l) {
			b.WriteByte(0)
			b.WriteString(l)
		}
	}
	return b.String()
}

// promptStands reports whether the output just taken in left the open
// question's prompt as it asked: the region that asks is as it was and, on
// a stream, which shows a row drawn again as new text, the output only drew
// elsewhere than on the question's row (elsewhere, see
// stream.Stripper.DrewElsewhere).
func (e *Engine) promptStands(elsewhere bool) bool {
	if e.asker.q == nil || e.sources.asking != nil || e.promptKey() != e.asker.key {
		return false
	}
	// A screen shows each row where the program drew it, so a row drawn
	// again changes nothing else.
	return elsewhere || e.screen != nil
}

// ShownColoured returns the screen with its colours, as escape sequences,
// secrets masked; empty where there is no screen (stream matching).
func (e *Engine) ShownColoured() string {
	if e.screen == nil {
		return ""
	}
	if c := e.screen.coloured(); c != "" {
		return e.redact(c)
	}
	return ""
}

// askLater opens a question once the output has settled after a hand-over
// to a person, for why and detail.
func (e *Engine) askLater(why ask.Reason, detail string) {
	e.asker.why, e.asker.detail, e.asker.pending = why, detail, true
}

// askAt is when the question a hand-over waits to ask opens: once the output
// has been quiet for settle, but for rows drawn again elsewhere.
func (e *Engine) askAt() time.Time {
	from := e.handOver.since
	if e.changedAt.After(from) {
		from = e.changedAt
	}
	return from.Add(e.pb.Settings.Settle)
}

// askSettled opens the question a hand-over waits to ask.
func (e *Engine) askSettled() {
	e.asker.pending = false
	if e.state == Manual && e.asker.q == nil {
		e.open(e.asker.why, e.asker.detail, "")
	}
}

// open opens a question for why: its text is the question line given, or,
// for none or a line that does not ask itself (an entry of a menu, a row of
// buttons, a line of key hints), the line that asks (see askedLine).
func (e *Engine) open(why ask.Reason, detail, line string) {
	if e.sources.asking != nil {
		return // the program asks through its own channel meanwhile
	}
	text := e.view.text()
	if line == "" || !asksItself(line) {
		line = e.askedLine(text)
	}
	shown, _ := e.Shown()
	e.asker.seq++
	e.asker.key, e.asker.row = e.promptKey(), e.strip.CursorRow()
	e.asker.q = &ask.Question{
		ID:         fmt.Sprintf("q%d", e.asker.seq),
		Session:    e.cfg.Session,
		Playbook:   e.pb.Name,
		Reason:     why,
		Detail:     detail,
		Text:       e.redact(line),
		Options:    e.optionsOf(text, line),
		Screen:     shown,
		ScreenHash: shownHash(shown),
		AskedAt:    e.now,
	}
	e.emit(Event{Name: EventQuestion, Question: e.asker.q, Excerpt: e.asker.q.Text, Reason: string(why)})
}

// closeQuestion closes the open question, if any, as how says (MovedOn or
// Ended).
func (e *Engine) closeQuestion(how string) {
	if e.asker.q == nil || e.sources.asking != nil && how == ask.MovedOn {
		// An External question moves on when its source says so.
		return
	}
	q := e.closed(ask.Closed{How: how})
	e.emit(Event{Name: EventClosed, Question: q, Reason: how})
}

// closed takes the open question away and returns it closed as c says, at now.
func (e *Engine) closed(c ask.Closed) *ask.Question {
	q := *e.asker.q
	c.At = e.now
	q.Closed = &c
	if e.sources.asking != nil {
		e.sources.closed = e.now
	}
	e.asker.q, e.sources.asking = nil, nil
	return &q
}

// askedLine returns the line of text that asks: the last line that reads as
// a question; else, where a menu shows, the line right above its first entry
// (a dialog's prompt); else the last line. An entry of a menu, a row of
// buttons (<  OK  >  <Cancel>) or a line of key hints (↑/↓ to navigate) is
// never the line that asks.
func (e *Engine) askedLine(text []byte) string {
	var entries map[string]bool
	var shaded []menu
	if e.screen != nil {
		shaded = e.screen.shadedMenus(text)
	}
	for _, m := range shaded {
		for _, o := range m.options {
			if entries == nil {
				entries = map[string]bool{}
			}
			entries[o.label] = true
		}
	}
	return askedLineOf(text, func(l string) bool { return isOption(l) || entries[strings.TrimSpace(unframe(l))] })
}

// askedLineOf is askedLine where isEntry tells the entries of menus.
func askedLineOf(text []byte, isEntry func(string) bool) string {
	lines := lastLines(text, 12)
	aboveMenu, belowIsOption := "", false
	for _, l := range lines {
		if isEntry(l) {
			belowIsOption = true
			continue
		}
		if isAside(l) {
			continue
		}
		t := strings.TrimSpace(unframe(l))
		if isQuestion(l) || strings.HasSuffix(t, "?") {
			return t
		}
		if belowIsOption {
			aboveMenu = t
		}
		belowIsOption = false
	}
	switch {
	case aboveMenu != "":
		return aboveMenu
	case len(lines) > 0:
		return strings.TrimSpace(unframe(lines[0]))
	}
	return ""
}

// asksItself reports whether line is a question's own line: it reads as
// one, and is no entry of a menu, row of buttons or line of key hints.
func asksItself(line string) bool {
	return isQuestion(line) && !isOption(line) && !isAside(line)
}

// hintLine tells which keys a menu takes: "↑/↓ to navigate · Esc to
// cancel", "↑↓ navigate • ⏎ select", "(Use arrow keys)".
var hintLine = &lazyre.Regexp{Expr: `(?i)\bto (select|navigate|cancel|confirm|toggle)\b|\bnavigate\b|⏎|\buse arrow keys\b`}

// isAside reports whether a line is a row of buttons or of key hints, which
// go with a question but never ask it.
func isAside(l string) bool {
	l = strings.TrimSpace(unframe(l))
	return buttonRow.Get().MatchString(l) || hintLine.Get().MatchString(l)
}

// isOption reports whether a line is an entry of a menu.
func isOption(l string) bool {
	l = gutter.Get().ReplaceAllString(unframe(l), "")
	return menuLine.Get().MatchString(l) || numberedOption.Get().MatchString(l) || markedOption.Get().MatchString(l) || radioOption.Get().MatchString(l)
}

// optionsOf returns the options a person can see: those of the menu on
// screen, else the choices the question line offers ([y/N], (yes/no)).
func (e *Engine) optionsOf(text []byte, line string) []ask.Option {
	opts := []ask.Option{}
	if menus := e.menus(text); len(menus) > 0 {
		for _, o := range menus[0].options {
			opts = append(opts, ask.Option{Label: e.redact(o.label)})
		}
		return opts
	}
	for _, c := range choices(line) {
		opts = append(opts, ask.Option{Label: c})
	}
	return opts
}

// choices returns the choices a [y/N]-style question offers, or nil.
func choices(line string) []string {
	m := choiceMark.Get().FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	parts := strings.Split(m[1], "/")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

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

// movedOn closes the open question of a hand-over when the program shows
// more by itself; headless, a new one opens once the output settles.
func (e *Engine) movedOn() {
	if e.asker.q == nil {
		return
	}
	e.closeQuestion(ask.MovedOn)
	if !e.cfg.Interactive {
		e.askLater(e.asker.why, e.asker.detail)
	}
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
