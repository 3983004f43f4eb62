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
// what it shows and what of it is new, never which mode it runs in.
//
// In both modes an answer, clai's or the person's at the terminal, makes all
// that was shown before it stale: only what the program shows afterwards acts,
// so a question is answered once.
type view interface {
	// add takes in output as the stripper passed it on; write takes it in as
	// the program wrote it, and returns what the view answers the program
	// itself (a terminal's replies to its queries) and whether matching waits
	// until the view settles (a screen a program may redraw in several
	// writes) rather than for output to pause.
	add(text []byte)
	write(data []byte) (reply []byte, settles bool)
	// scrolledOff tells the view, before write, how many rows have left
	// the top of the screen as it scrolled up as a whole, in all the
	// output so far up to data, as the stripper counts them: a screen
	// lines up the rows it shows with those it showed by it.
	scrolledOff(rows uint64)
	// addElsewhere takes in output that only drew rows elsewhere than where
	// the program waits (a clock, a spinner): a stream keeps the latest
	// version of them at its end, not every tick, and promptText, what the
	// prompt detector reads, leaves them out, as they would hide the prompt
	// they left as it was. A screen shows each row where it is drawn.
	addElsewhere(text []byte)
	promptText() []byte
	// resize changes the size of the view to rows×cols.
	resize(rows, cols int)
	// paused tells the view that the program paused after its last output
	// (frameQuiet at least): what it shows was a frame (see screen.EndFrame).
	paused()

	// text returns what patterns see: valid until the view next changes.
	text() []byte
	// look marks the view as matched now and returns its text, if it changed
	// as a whole since it was last matched (a screen redrawn); changed reports
	// whether it did, without marking; settling whether matching waits for the
	// view to settle, and whether all that changed is plain output (text,
	// colours, line ends), which a stream would match at once.
	look() (text []byte, changed bool)
	changed() bool
	settling() (waits, plain bool)

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
	// asAnswered reports whether clai answered the view as it stands: nothing
	// changed since its last answer, so nothing in it is fresh.
	asAnswered() bool
	// stale reports whether text[start:end] (text as text returned it) was
	// shown before the last answer and is unchanged since: a screen keeps
	// it in sight where it was; a stream shows only what followed the answer.
	stale(text []byte, start, end int) bool
	// denied is told that a deny danger rule matched output before the view
	// takes it in: its refusal answers a prompt in what follows, so all that
	// was shown before is stale.
	denied()

	// count counts the copies of each rule's text the view shows; appeared
	// then reports whether a rule's text appeared (a copy more than the count
	// before), and rearm makes a rule's text count as not shown yet, so that
	// the rule fires on it when an answer held back may be sent.
	count(rules []*playbooks.Rule, text []byte)
	appeared(r *playbooks.Rule) bool
	rearm(r *playbooks.Rule)
	// streamedDanger keeps of the danger hits in added text those that count:
	// a view that shows the same text again (a screen) counts a rule's text
	// once while it is shown. shownDanger returns the hits of what the view
	// shows (as look returned it) that the stream did not count.
	streamedDanger(hits []dangerHit) []dangerHit
	shownDanger(rules []*playbooks.Danger, text []byte) []dangerHit

	// screen returns the screen as a person sees it, for events and the screen
	// value of expressions; empty on a stream. coloured returns it with its
	// colours, as escape sequences; empty on a stream.
	screen() string
	coloured() string
	// tail returns the last output for a message, masked by redact before it
	// is cut.
	tail(redact func(string) string) string
	// cursorRow returns the row of text (as text returned it) the cursor is
	// on, where a program waits for what is typed; nil on a stream, whose
	// last line is what the program wrote last, wherever it drew it.
	// inPlace reports whether the view shows each row where the program
	// drew it (a screen), so that a row drawn again changes nothing else.
	cursorRow(text []byte) []byte
	inPlace() bool
	// appCursor reports whether the program asked for the arrow keys'
	// application cursor mode.
	appCursor() bool
	// shadedMenus returns the menus of text whose current option shows only by
	// its shade, which only a screen knows.
	shadedMenus(text []byte) []menu
}

// newView returns the view of settings.match for a terminal of rows×cols.
func newView(pb *playbooks.Playbook, rows, cols int) view {
	if pb.Settings.Match == playbooks.MatchScreen {
		return newScreenView(rows, cols)
	}
	return &streamView{limit: int(pb.Settings.Window)}
}
