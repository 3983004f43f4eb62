package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// A Typist turns an answer to a question a source outside the engine asked
// into what is typed: the source knows how the program's dialog takes its
// answers, the engine only types them.
type Typist interface {
	// Strokes returns the keystrokes that answer a, typed one after another,
	// each its own write; and how the answer shows in events and reports
	// (masked by the engine). Or it refuses a with an *ask.Refusal, and
	// nothing is typed. It is called in the engine's call and must not block.
	Strokes(a ask.Answer) ([]Stroke, string, *ask.Refusal)
}

// A Stroke is one write of an answer to an External question.
type Stroke struct {
	keys.Keystrokes
	// Await, when set, holds the stroke back until one line of what is shown
	// holds each of these texts: the program drew what the stroke is for (a
	// text field a keystroke before it opened). When none does within
	// AwaitLimit, the program is not where the answer expects it (its dialog
	// was closed, say), and neither this stroke nor the rest of the answer
	// is typed: a text typed elsewhere could be taken for something else.
	Await []string
	// shows, when set, holds the stroke back until this text shows in what
	// the program showed since clai last typed (see showsTyped), AwaitLimit
	// at most, as Await does: a line's Enter waits for its text.
	shows string
	// own marks a keystroke of clai's own answer (a line a rule typed apart
	// from its Enter), not of a person's.
	own bool
}

// AwaitLimit bounds how long a Stroke waits for its Await; the screen is
// looked at every awaitPoll meanwhile. EnterPause is how long after a line's
// text shows its Enter is pressed (settings.enter: after-text).
const (
	AwaitLimit = 5 * time.Second
	awaitPoll  = 50 * time.Millisecond
	EnterPause = 100 * time.Millisecond
)

// External is a question a source outside the engine asks: the program asked
// it through a channel of its own (a question tool), not on its screen.
type External struct {
	// Question is the question as the source sees it: its Reason, Detail,
	// Text, Options, Header, MultiSelect and Other. The engine fills in the
	// rest (its id, the session, the playbook, the screen, the time).
	Question ask.Question
	// Typist types its answers.
	Typist Typist
	// Gap is the time between two keystrokes of an answer, so that the
	// program reads each as a key of its own.
	Gap time.Duration
}

// external is the open question's source, when it is an External.
type external struct {
	typist Typist
	gap    time.Duration
	// strokes wait to be typed, the first at strokeAt, then gap apart;
	// awaitSince is when the first began to wait for its Await; shownAt
	// when the text a line's Enter waits for showed.
	strokes    []Stroke
	strokeAt   time.Time
	awaitSince time.Time
	shownAt    time.Time
}

// Ask opens x as the run's question and returns its id; an open question of
// the engine's own closes as moved on, since the program now asks something
// else. Until x's source closes it (Withdraw), an answer is typed, or the run
// ends, the engine opens none of its own, and output does not close it. Once
// the run has ended nothing opens, and the id is "".
func (e *Engine) Ask(now time.Time, x External) ([]Action, string) {
	e.begin(now)
	if e.result != nil || x.Typist == nil {
		return e.end(), ""
	}
	if e.asker.q != nil {
		e.withdrawOpen(ask.MovedOn)
	}
	e.asker.pending = false
	shown, hash := e.Shown()
	q := x.Question
	e.asker.seq++
	q.ID = fmt.Sprintf("q%d", e.asker.seq)
	q.Session, q.Playbook = e.cfg.Session, e.pb.Name
	q.Screen, q.ScreenHash, q.AskedAt, q.Closed = shown, hash, e.now, nil
	q.Text, q.Header, q.Detail = e.redact(q.Text), e.redact(q.Header), e.redact(q.Detail)
	q.Options = append([]ask.Option(nil), q.Options...)
	for i, o := range q.Options {
		q.Options[i] = ask.Option{Label: e.redact(o.Label), Description: e.redact(o.Description)}
	}
	if q.Options == nil {
		q.Options = []ask.Option{}
	}
	e.asker.q = &q
	e.sources.asking = &external{typist: x.Typist, gap: x.Gap}
	e.emit(Event{Name: EventQuestion, Question: e.asker.q, Excerpt: e.asker.q.Text, Reason: string(q.Reason)})
	return e.end(), q.ID
}

// Withdraw closes the question id that a source asked, as how says (MovedOn:
// the program went on, answered some other way), if it is still open.
func (e *Engine) Withdraw(now time.Time, id, how string) []Action {
	e.begin(now)
	if e.asker.q != nil && e.sources.asking != nil && e.asker.q.ID == id {
		e.withdrawOpen(how)
	}
	return e.end()
}

// withdrawOpen closes the open question, whoever asked it.
func (e *Engine) withdrawOpen(how string) {
	q := e.closed(ask.Closed{How: how})
	e.emit(Event{Name: EventClosed, Question: q, Reason: how})
}

// externalAnswer checks an answer to the open External question and returns
// its keystrokes, or why it is refused. The screen is not compared: the
// source closes the question when the program has gone on.
func (e *Engine) externalAnswer(a ask.Answer) ([]Stroke, string, *ask.Refusal) {
	if formsGiven(a) != 1 {
		return nil, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: "an answer is exactly one of a text, an option to choose, options to choose, or keys"}
	}
	if len(a.Keys) > 0 {
		send, shown, refusal := e.keysAnswer(a.Keys)
		if refusal != nil {
			return nil, "", refusal
		}
		strokes := make([]Stroke, len(send.Keys))
		for i, k := range send.Keys {
			strokes[i] = Stroke{Keystrokes: keys.Keystrokes{Keys: []keys.Key{k}, AppCursor: send.AppCursor}}
		}
		return strokes, shown, nil
	}
	if a.Text != nil && len(*a.Text) > maxAnswerText {
		return nil, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: fmt.Sprintf("a text answer is at most %d bytes", maxAnswerText)}
	}
	strokes, shown, refusal := e.sources.asking.typist.Strokes(a)
	if refusal != nil {
		return nil, "", refusal
	}
	if len(strokes) == 0 {
		return nil, "", &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: "the answer types nothing"}
	}
	app := e.appCursor()
	for i := range strokes {
		strokes[i].AppCursor = app
	}
	return strokes, shown, nil
}

// typeStrokes queues an external answer's keystrokes: the first is typed
// now, or once min_send_interval has passed since clai's last answer, the
// others gap apart.
func (e *Engine) typeStrokes(x *external, strokes []Stroke) {
	if e.sources.typing != nil {
		// An answer before it is still being typed: this one follows it.
		e.sources.typing.strokes = append(e.sources.typing.strokes, strokes...)
		return
	}
	x.strokes = strokes
	x.strokeAt = e.now
	if e.sender.sent && e.now.Before(e.sender.last.Add(e.pb.Settings.MinSendInterval)) {
		x.strokeAt = e.sender.last.Add(e.pb.Settings.MinSendInterval)
	}
	e.sources.typing = x
	if !e.now.Before(x.strokeAt) {
		e.typeStroke()
	}
}

// typeStroke types the next keystroke of the answer being typed, once the
// screen shows what it awaits.
func (e *Engine) typeStroke() {
	x := e.sources.typing
	if x == nil || len(x.strokes) == 0 {
		e.sources.typing = nil
		return
	}
	next := x.strokes[0]
	waiting, awaited := len(next.Await) > 0 && !e.showsLine(next.Await), fmt.Sprintf("line with %q", next.Await)
	if next.shows != "" {
		waiting, awaited = !e.showsTyped(next.shows), fmt.Sprintf("line showing the typed text %q", next.shows)
	}
	if waiting {
		x.shownAt = time.Time{}
		if x.awaitSince.IsZero() {
			x.awaitSince = e.now
			e.emit(Event{Name: EventDefer, Reason: fmt.Sprintf("the answer's next keystroke waits for a %s, %s at most", awaited, AwaitLimit)})
		}
		if e.now.Before(x.awaitSince.Add(AwaitLimit)) {
			x.strokeAt = e.now.Add(awaitPoll)
			return
		}
		e.emit(Event{Name: EventError, Reason: fmt.Sprintf("no %s within %s: the rest of the answer (%d keystrokes) is not typed", awaited, AwaitLimit, len(x.strokes))})
		x.strokes, x.awaitSince, e.sources.typing = nil, time.Time{}, nil
		return
	}
	x.awaitSince = time.Time{}
	if next.shows != "" {
		// The text shows: the program read it. Its Enter follows a pause,
		// so that the program takes it for a key of its own and not the end
		// of a paste (Gemini CLI turns an Enter read within 30 ms of a
		// typed character into a new line).
		if x.shownAt.IsZero() {
			x.shownAt = e.now
		}
		if e.now.Before(x.shownAt.Add(EnterPause)) {
			x.strokeAt = x.shownAt.Add(EnterPause)
			return
		}
		x.shownAt = time.Time{}
	}
	s := Send{Keystrokes: next.Keystrokes}
	if len(next.Keys) > 0 {
		s.AppCursor = e.appCursor()
	}
	if next.own {
		e.typeOwn(s)
	} else {
		e.typeAnswer(s)
	}
	x.strokes = x.strokes[1:]
	x.strokeAt = e.now.Add(x.gap)
	if len(x.strokes) == 0 {
		e.sources.typing = nil
	}
}

// showsLine reports whether one line of what is shown holds each of texts.
func (e *Engine) showsLine(texts []string) bool {
	shown, _ := e.Shown()
	for line := range strings.SplitSeq(shown, "\n") {
		all := true
		for _, t := range texts {
			if !strings.Contains(line, t) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// A dialog is a dialog of the program's whose questions a source asks (see
// ClaimDialog): it is on screen while a line of the screen begins with one of
// its marks.
type dialog struct {
	id    string
	marks []string
	// released is set once the source is done with it: it is forgotten as
	// soon as the screen no longer shows it.
	released bool
}

// maxDialogs bounds the dialogs claimed at once: past it, the oldest claim is
// forgotten.
const maxDialogs = 64

// ClaimDialog tells the engine that a source asks the questions of the
// program's dialog id, which shows marks on screen (the start of each of its
// questions, at the start of a line). While the screen shows it, the prompt
// detector opens no question of the engine's for the screen, also between
// the source's questions and after the last is answered; a question the
// detector already opened for it closes as moved on, and nothing is typed.
// The claim lasts until ReleaseDialog, and then until the screen no longer
// shows the dialog.
func (e *Engine) ClaimDialog(now time.Time, id string, marks []string) []Action {
	e.begin(now)
	d := dialog{id: id}
	for _, m := range marks {
		if m = strings.TrimSpace(m); m != "" {
			d.marks = append(d.marks, m)
		}
	}
	if e.result != nil || len(d.marks) == 0 {
		return e.end()
	}
	e.sources.dialogs = slices.DeleteFunc(e.sources.dialogs, func(o dialog) bool { return o.id == id })
	if len(e.sources.dialogs) == maxDialogs {
		e.sources.dialogs = e.sources.dialogs[1:]
	}
	e.sources.dialogs = append(e.sources.dialogs, d)
	if e.asker.q != nil && e.sources.asking == nil && e.asker.q.Reason == ask.Prompt && e.dialogShown() {
		e.withdrawOpen(ask.MovedOn)
	}
	return e.end()
}

// ExpectDialogs tells the engine what the program's dialogs that a source
// asks about show on screen before the source knows of them (a line that
// begins with one of marks): a prompt question for a screen that shows one
// waits up to wait for the source to claim the dialog (ClaimDialog) or ask
// its question, and opens as any other once wait has passed without.
func (e *Engine) ExpectDialogs(now time.Time, marks []string, wait time.Duration) []Action {
	e.begin(now)
	for _, m := range marks {
		if m = strings.TrimSpace(m); m != "" && len(e.sources.expected.marks) < maxDialogs {
			e.sources.expected.marks = append(e.sources.expected.marks, m)
		}
	}
	e.sources.expectWait = max(e.sources.expectWait, wait)
	return e.end()
}

// holdPrompt reports whether the prompt question for the screen is held
// back: for good while a source's claimed dialog is shown, for a while when
// the screen shows a dialog a source expects (see askHeld).
func (e *Engine) holdPrompt(detail string) bool {
	e.sources.heldUntil = time.Time{}
	switch {
	case e.dialogShown():
		return true
	case e.sources.expectWait > 0 && e.sources.expected.onScreen(strings.Split(string(e.view.text()), "\n")):
		e.sources.heldUntil, e.sources.heldDetail = e.now.Add(e.sources.expectWait), detail
		return true
	}
	return false
}

// askHeld opens the prompt question held back for a dialog a source expects,
// unless a source asked or claimed it meanwhile.
func (e *Engine) askHeld() {
	e.sources.heldUntil = time.Time{}
	if e.asker.q == nil && !e.dialogShown() {
		e.open(ask.Prompt, e.sources.heldDetail, e.prompt.question)
	}
}

// ReleaseDialog ends the claim of the dialog id: the program is done with
// it. Its dialog is still not asked about while the screen shows it.
func (e *Engine) ReleaseDialog(now time.Time, id string) []Action {
	e.begin(now)
	for i := range e.sources.dialogs {
		if e.sources.dialogs[i].id == id {
			e.sources.dialogs[i].released = true
		}
	}
	e.dialogShown()
	return e.end()
}

// dialogShown reports whether the screen shows a dialog a source claimed. A
// released claim whose dialog is no longer shown is forgotten.
func (e *Engine) dialogShown() bool {
	if len(e.sources.dialogs) == 0 {
		return false
	}
	lines := strings.Split(string(e.view.text()), "\n")
	shown := false
	e.sources.dialogs = slices.DeleteFunc(e.sources.dialogs, func(d dialog) bool {
		on := d.onScreen(lines)
		shown = shown || on
		return d.released && !on
	})
	return shown
}

// onScreen reports whether a line begins with one of the dialog's marks.
func (d dialog) onScreen(lines []string) bool {
	for _, l := range lines {
		l = strings.TrimSpace(unframe(l))
		for _, m := range d.marks {
			if strings.HasPrefix(l, m) {
				return true
			}
		}
	}
	return false
}
