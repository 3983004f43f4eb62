package engine

import (
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// A view is what the program showed, as the steps, rules and danger rules are
// matched against it: in stream mode the window of stripped output not yet
// answered (see streamView), in screen mode the virtual screen, where what was
// answered stays in sight but is no longer fresh (see screenView). NewEngine
// picks the view once, from settings.match; the engine then asks the view
// what it shows and what of it is new, never which mode it runs in. What only
// a screen knows (its cells, its cursor, its colours, what changed on it as a
// whole) it offers through screenOnly, which the engine holds beside the view
// when the view is a screen.
//
// In both modes an answer, clai's or the person's at the terminal, makes all
// that was shown before it stale: only what the program shows afterwards acts,
// so a question is answered once.
type view interface {
	// add takes in output as the stripper passed it on.
	add(text []byte)
	// addElsewhere takes in output that only drew rows elsewhere than where
	// the program waits (a clock, a spinner): a stream keeps the latest
	// version of them at its end, not every tick, and promptText, what the
	// prompt detector reads, leaves them out, as they would hide the prompt
	// they left as it was. A screen shows each row where it is drawn.
	addElsewhere(text []byte)
	promptText() []byte

	// text returns what patterns see: valid until the view next changes.
	text() []byte
	// find returns the leftmost match of m's text patterns in text (as text
	// returned it) that is fresh: shown since the last answer. Its indices
	// stay valid until l is reset.
	find(l *locs, m *pattern.Matcher, text []byte) (hit, bool)
	// consume marks the text up to end as used up by a match that ends there,
	// whether it is answered or only waited for, so that it does not act again.
	consume(end int)
	// answered makes all that was shown so far stale, at an answer of clai's
	// (byClai) or of the person at the terminal.
	answered(byClai bool)
	// denied is told that a deny danger rule matched output before the view
	// takes it in: its refusal answers a prompt in what follows, so all that
	// was shown before is stale.
	denied()

	// tail returns the last output for a message, masked by redact before it
	// is cut.
	tail(redact func(string) string) string
}

// screenOnly is what only a screen view offers besides the view: the virtual
// terminal the program draws on, its cells, cursor and colours, and what
// changed on it as a whole. A stream has none of it: it only grows, what it
// added is fresh until answered, each of its matches is new, and its last
// line is what the program wrote last, wherever it drew it.
type screenOnly interface {
	// write takes in output as the program wrote it, and returns what the
	// view answers the program itself (a terminal's replies to its queries)
	// and whether matching waits until the view settles (a screen a program
	// may redraw in several writes) rather than for output to pause.
	write(data []byte) (reply []byte, settles bool)
	// scrolledOff tells the view, before write, how many rows have left
	// the top of the screen as it scrolled up as a whole, in all the
	// output so far up to data, as the stripper counts them: a screen
	// lines up the rows it shows with those it showed by it.
	scrolledOff(rows uint64)
	// resize changes the size of the view to rows×cols.
	resize(rows, cols int)
	// paused tells the view that the program paused after its last output
	// (frameQuiet at least): what it shows was a frame (see screen.EndFrame).
	paused()

	// look marks the view as matched now and returns its text, if it changed
	// as a whole since it was last matched (a screen redrawn); changed reports
	// whether it did, without marking; settling whether matching waits for the
	// view to settle, and whether all that changed is plain output (text,
	// colours, line ends), which a stream would match at once.
	look() (text []byte, changed bool)
	changed() bool
	settling() (waits, plain bool)
	// asAnswered reports whether clai answered the view as it stands: nothing
	// changed since its last answer, so nothing in it is fresh.
	asAnswered() bool
	// stale reports whether text[start:end] (text as text returned it) was
	// shown before the last answer and is unchanged since: the screen keeps
	// it in sight where it was.
	stale(text []byte, start, end int) bool

	// count counts the copies of each rule's text the view shows; appeared
	// then reports whether a rule's text appeared (a copy more than the count
	// before), and rearm makes a rule's text count as not shown yet, so that
	// the rule fires on it when an answer held back may be sent.
	count(rules []*playbooks.Rule, text []byte)
	appeared(r *playbooks.Rule) bool
	rearm(r *playbooks.Rule)
	// streamedDanger keeps of the danger hits in added text those that count:
	// the screen shows the same text again, so it counts a rule's text once
	// while it is shown. shownDanger returns the hits of what the view shows
	// (as look returned it) that the stream did not count.
	streamedDanger(hits []dangerHit) []dangerHit
	shownDanger(rules []*playbooks.Danger, text []byte) []dangerHit

	// screen returns the screen as a person sees it, for events and the screen
	// value of expressions. coloured returns it with its colours, as escape
	// sequences.
	screen() string
	coloured() string
	// cursorRow returns the row of text (as text returned it) the cursor is
	// on, where a program waits for what is typed.
	cursorRow(text []byte) []byte
	// appCursor reports whether the program asked for the arrow keys'
	// application cursor mode.
	appCursor() bool
	// shadedMenus returns the menus of text whose current option shows only by
	// its shade.
	shadedMenus(text []byte) []menu
}

// newView returns the view of settings.match for a terminal of rows×cols.
func newView(pb *playbooks.Playbook, rows, cols int) view {
	if pb.Settings.Match == playbooks.MatchScreen {
		return newScreenView(rows, cols)
	}
	return &streamView{limit: int(pb.Settings.Window)}
}

// The engine's questions of the view that only a screen answers otherwise
// than a stream does.

// stale reports whether text[start:end] (as the view's text returned it) was
// shown before the last answer and is unchanged since: never on a stream,
// which shows only what followed the answer.
func (e *Engine) stale(text []byte, start, end int) bool {
	return e.screen != nil && e.screen.stale(text, start, end)
}

// asAnswered reports whether clai answered the view as it stands: never on a
// stream, which an answer emptied, so what is in it came after.
func (e *Engine) asAnswered() bool {
	return e.screen != nil && e.screen.asAnswered()
}

// rearm makes a rule's text on screen count as not shown yet (see
// screenOnly.rearm): on a stream every match is new.
func (e *Engine) rearm(r *playbooks.Rule) {
	if e.screen != nil {
		e.screen.rearm(r)
	}
}

// appCursor reports whether the program asked for the arrow keys' application
// cursor mode, which only a screen follows.
func (e *Engine) appCursor() bool {
	return e.screen != nil && e.screen.appCursor()
}

// shownScreen returns the screen as a person sees it; empty on a stream.
func (e *Engine) shownScreen() string {
	if e.screen == nil {
		return ""
	}
	return e.screen.screen()
}
