package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/runner/ask"
)

// The engine opens a question where a person is needed: at PROMPTING, and in
// MANUAL once the output has settled after the hand-over. It closes it when an
// answer is typed (Answer, or the person types at the terminal), when the
// program moves on by itself, or when the run ends. An answer is checked
// against the open question and the screen it was given for; one that does not
// fit is refused and typed never.

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
