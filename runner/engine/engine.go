package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/stream"
)

// Under a flood, matching every read would multiply the cost of many patterns: a
// read of at least bigRead bytes is only absorbed (stripped, scanned for danger,
// added to the window), and matching waits until output pauses for batchQuiet or
// maxUnmatched bytes have arrived. A program waiting at a prompt is quiet, so its
// prompt is answered at most batchQuiet late.
const (
	bigRead      = 2 << 10
	maxUnmatched = 256 << 10
	batchQuiet   = time.Millisecond
)

// frameQuiet is how long a program must pause after its output for what the
// screen shows to count as a frame it showed: a program draws a frame in a
// burst of writes microseconds apart, and pauses between frames.
const frameQuiet = 30 * time.Millisecond

// verifyAfter is how long clai waits for any reaction to an answer before it
// sends the answer once more.
const verifyAfter = time.Second

// doubleInterrupt is how close two Ctrl-C must be to end the run.
const doubleInterrupt = time.Second

// Engine is the state machine that drives one run. It is not safe for concurrent
// use; runner.Run calls it from one goroutine.
//
// Its state is in named parts (parts.go): where the run is in the steps
// (steps), how often the rules fired (firings), whether the program reacted
// to clai's answer (verifier), the nudges of an idle program (nudger), the
// question open (asker), the prompt detector's (prompt), the hand-over to a
// person (handOver), the question sources and their dialogs (sources), what
// is typed and when (sender), a dry run's wait (dry) and the actions a call
// returns (actions).
type Engine struct {
	pb  *playbooks.Playbook
	cfg Config

	start time.Time
	now   time.Time
	state State

	strip   stream.Stripper
	scratch []byte
	// redrawn lists the rows the stripper passed on again in the last output.
	redrawn []stream.Redraw
	// view is what the program showed, as steps and rules are matched
	// against it: the stream's window, or the screen of settings.match: screen.
	view view
	// screen is the view when it is a screen, for what only a screen
	// offers; nil on a stream.
	screen screenOnly
	danger dangerScanner
	// locs holds the indices of the matches a call finds; texts makes the
	// strings of what matched and what is sent.
	locs  locs
	texts texts
	// gates spares stream matching the rules that cannot match (nil: none).
	gates *ruleGates
	// unmatched counts output bytes absorbed since matching last ran.
	unmatched int
	// choosing is a choose action waiting to see its selection on screen.
	choosing *choosing
	// rulesChoose is set when a rule's action is a choose.
	rulesChoose bool
	// refusal is the pending answer of a deny danger rule, sent once the output
	// settles.
	refusal *playbooks.Danger

	lastOutput time.Time
	// changedAt is when the program last wrote more than rows drawn again
	// elsewhere (see stream.Stripper.DrewElsewhere): a prompt settles from then.
	changedAt time.Time
	// busySeen is when the idle timer last found the program saying it is busy.
	busySeen time.Time

	steps    stepCursor
	firings  firings
	verifier verifier
	nudger   nudger
	asker    asker
	prompt   promptWatch
	handOver handOver
	sources  sources
	sender   sender
	dry      dryRun
	actions  actions

	exitCode int
	result   *Result
}

// NewEngine makes an engine for a loaded playbook.
func NewEngine(pb *playbooks.Playbook, cfg Config) *Engine {
	if cfg.Vars == nil {
		cfg.Vars = map[string]string{}
		for _, v := range pb.Vars {
			cfg.Vars[v.Name] = v.Value
		}
	}
	e := &Engine{
		pb: pb, cfg: cfg, state: Starting,
		firings: newFirings(len(pb.Rules)),
		danger:  dangerScanner{limit: int(pb.Settings.Window)},
		view:    newView(pb, cfg.Rows, cfg.Cols),
	}
	e.screen, _ = e.view.(screenOnly)
	e.strip.SetWidth(cfg.Cols)
	e.strip.SetHeight(cfg.Rows)
	if e.screen == nil {
		// A screen's search of a rule learns what changed on it: every
		// rule is searched there.
		e.gates = newRuleGates(pb.Rules)
	}
	for _, r := range pb.Rules {
		if r.Action != nil && r.Action.Kind == playbooks.ActChoose {
			e.rulesChoose = true
		}
	}
	return e
}

// State returns the current state.
func (e *Engine) State() State { return e.state }

// Result returns how the run ended, or nil while it goes on.
func (e *Engine) Result() *Result { return e.result }

// Fired returns how often each rule and danger rule fired.
func (e *Engine) Fired() map[string]int { return e.firings.counts(e.pb.Rules) }

// The actions a method returns are valid until the next call.

// Start begins the run at now.
func (e *Engine) Start(now time.Time) []Action {
	e.begin(now)
	e.start, e.lastOutput, e.changedAt, e.steps.since = now, now, now, now
	e.emit(Event{Name: EventStart, Reason: e.pb.Name})
	e.setState(Running, "program started")
	e.evaluate()
	return e.end()
}

// Output observes bytes the program wrote.
func (e *Engine) Output(now time.Time, data []byte) []Action {
	e.begin(now)
	if e.result != nil {
		return e.end()
	}
	if e.screen != nil && now.Sub(e.lastOutput) >= frameQuiet {
		// What the screen shows was shown a while: a frame of the program's.
		e.screen.paused()
	}
	// A line changed behind the text already seen is seen again as it shows now.
	e.scratch = e.strip.Settle(e.strip.Append(e.scratch[:0], data))
	e.redrawn = e.strip.Redraws()
	text := e.scratch
	if e.state == Nudging && e.isNudgeEcho(text) {
		// The program echoed the nudge: that is not a sign of life, but the
		// screen draws it as the person's terminal does.
		e.scanDanger(text)
		e.view.add(text)
		e.draw(data)
		return e.end()
	}
	e.lastOutput = now
	e.verifier.pending = false
	e.nudger.count = 0
	// Output that only draws elsewhere (a clock, a spinner, a status line)
	// leaves where the program waits as it was: a prompt shown there has
	// settled all the same, and the question open on it stands if the view
	// says its prompt is as it was.
	var elsewhere, atText bool
	if len(text) > 0 {
		elsewhere, atText = e.strip.DrewElsewhere()
	}
	e.prompt.checked, e.prompt.again = false, time.Time{}
	aside := elsewhere && atText
	if !aside {
		e.changedAt = now
	}
	e.scanDanger(text)
	if aside {
		e.view.addElsewhere(text)
	} else {
		e.view.add(text)
	}
	settles := e.draw(data)
	elsewhere = elsewhere && e.asker.q != nil && e.strip.CursorRow() == e.asker.row
	if len(text) > 0 && !e.promptStands(elsewhere) {
		switch e.state {
		case Prompting, Nudging:
			e.setState(Running, "output resumed")
		case Manual:
			e.movedOn()
		}
	}
	if settles {
		// Matched by the timer once the view has been still (see eachTimer).
		return e.end()
	}
	e.unmatched += len(data)
	if len(data) >= bigRead && e.unmatched < maxUnmatched {
		return e.end()
	}
	e.match()
	return e.end()
}

// Echo observes whether the terminal echoes what is typed, as the session
// found it when it typed keystrokes marked Send.AwaitsReaction, or before a
// Tick since. With echo off the program reads unseen, a password or a key, and
// shows nothing for it: silence is then no sign that the answer was missed,
// and it is never sent again.
func (e *Engine) Echo(on bool) {
	if !on {
		e.verifier.pending = false
	}
}

// Resize observes a change of the terminal size.
func (e *Engine) Resize(rows, cols int) {
	e.strip.SetWidth(cols)
	e.strip.SetHeight(rows)
	if e.screen != nil {
		e.screen.resize(rows, cols)
	}
}

// settleQuiet is how long a view that settles (a screen) must be still before
// it is matched: settings.settle, so that a screen a program redraws in several
// writes is matched whole. Where all the program wrote since the screen was
// last matched is plain output (text, colours and line ends, which add to the
// screen as to a stream) and no choose may act on a half-drawn menu, the
// screen is matched as soon as output pauses, as the stream is.
func (e *Engine) settleQuiet(plain bool) time.Duration {
	if plain && !e.mayChoose() {
		return batchQuiet
	}
	return e.pb.Settings.Settle
}

// mayChoose reports whether a choose may act now: a rule's, or a case's of the
// current step.
func (e *Engine) mayChoose() bool {
	if e.rulesChoose || e.choosing != nil {
		return true
	}
	s := e.currentStep()
	if s == nil {
		return false
	}
	for _, c := range s.Branches() {
		if c.Action != nil && c.Action.Kind == playbooks.ActChoose {
			return true
		}
	}
	return false
}

// match runs the steps and rules over the window.
func (e *Engine) match() {
	e.unmatched = 0
	e.evaluate()
}

// Tick observes the passing of time: timeouts, deferred answers, settling. It
// runs the timers due, in order of precedence, until one ends the run.
func (e *Engine) Tick(now time.Time) []Action {
	e.begin(now)
	for t := range e.eachTimer {
		if e.result != nil {
			break
		}
		if !t.at.IsZero() && !e.now.Before(t.at) {
			t.fire(e)
		}
	}
	return e.end()
}

// Input observes n bytes the person at the terminal typed; their content is never
// seen, so what is typed at a password prompt cannot leak.
func (e *Engine) Input(now time.Time, n int) []Action {
	e.begin(now)
	if e.result == nil {
		e.emit(Event{Name: EventInput, Bytes: n})
		e.answeredAtTerminal(n)
		if e.state == Manual {
			e.handOver.decidedBy = "the person at the terminal"
		}
		// The person answered what was shown: as after clai's own answer,
		// only what the program shows from now on acts.
		e.view.answered(false)
		e.verifier.pending = false
		// The prompt answered is still on screen until the program reacts:
		// look for one again only once it shows something.
		e.prompt.checked, e.prompt.again = true, time.Time{}
		if e.state == Prompting {
			e.setState(Running, "answered at the terminal")
		}
	}
	return e.end()
}

// Interrupt observes a Ctrl-C from the person at the terminal (which runner.Run passes on
// to the program): clai goes to MANUAL; a second one within a second ends the run.
func (e *Engine) Interrupt(now time.Time) []Action {
	e.begin(now)
	if e.result != nil {
		return e.end()
	}
	e.emit(Event{Name: EventInterrupt})
	if !e.handOver.lastInterrupt.IsZero() && now.Sub(e.handOver.lastInterrupt) <= doubleInterrupt {
		e.finish(Aborted, exitcode.Interrupted, "Ctrl-C twice", true)
		return e.end()
	}
	e.handOver.lastInterrupt = now
	e.toManual(ask.Interrupt, "Ctrl-C from the user")
	return e.end()
}

// draw passes data to the view's screen, if it has one, and answers what the
// program asked the terminal; it reports whether matching waits for the view
// to settle.
func (e *Engine) draw(data []byte) (settles bool) {
	if e.screen == nil {
		// A stream takes in what the stripper passed on, and answers nothing.
		return false
	}
	e.screen.scrolledOff(e.strip.ScrolledOff())
	reply, settles := e.screen.write(data)
	if len(reply) > 0 && !e.cfg.Replay {
		e.addSend(Send{Keystrokes: keys.Keystrokes{Data: reply}, Reply: true})
	}
	return settles
}

// isNudgeEcho reports whether text is no more than the echo of the last nudge.
func (e *Engine) isNudgeEcho(text []byte) bool {
	t := strings.TrimSpace(string(text))
	return t == "" || t == strings.TrimSpace(e.nudger.last)
}

// Deadline returns the next time the engine wants a Tick, if any: the earliest
// of the timers that wake it.
func (e *Engine) Deadline() (time.Time, bool) {
	if e.result != nil {
		return time.Time{}, false
	}
	var next time.Time
	for t := range e.eachTimer {
		if t.wakes && !t.at.IsZero() && (next.IsZero() || t.at.Before(next)) {
			next = t.at
		}
	}
	return next, !next.IsZero()
}

func (e *Engine) begin(now time.Time) {
	if now.After(e.now) {
		e.now = now
	}
	e.actions.reset()
	e.locs.reset()
}

// end returns the actions of the call; the slice is reused by the next call.
// When the call leaves the engine awaiting a reaction to its answer, the
// keystrokes it types say so (see Send.AwaitsReaction).
func (e *Engine) end() []Action {
	if e.verifier.pending && e.result == nil {
		e.actions.awaitReaction()
	}
	return e.actions.out
}

func (e *Engine) emit(ev Event) {
	ev.At = e.now.Sub(e.start)
	if ev.State == "" {
		ev.State = e.state
	}
	if ev.Name.IsDecision() || ev.Name == EventState && ev.State == Manual {
		// A blank screen, or a stream, has none to keep.
		if scr := e.shownScreen(); scr != "" {
			ev.Screen = e.redact(scr)
		}
	}
	e.actions.event(ev)
}

// addSend adds a Send to the call's actions.
func (e *Engine) addSend(s Send) {
	e.actions.send(s)
}

func (e *Engine) setState(s State, reason string) {
	if s == e.state {
		return
	}
	from := e.state
	e.state = s
	if from == Prompting || from == Manual {
		e.asker.pending = false
		e.closeQuestion(ask.MovedOn)
	}
	e.emit(Event{Name: EventState, From: from, State: s, Reason: reason})
}

func (e *Engine) toManual(why ask.Reason, reason string) {
	e.refusal = nil
	e.sender.wake = time.Time{}
	e.verifier.pending = false
	e.handOver.begin(e.now, reason)
	e.setState(Manual, reason)
	if !e.cfg.Interactive && !e.cfg.Replay && !e.cfg.Remote {
		// Nobody can take over: waiting would only run into a timeout.
		e.finish(Manual, exitcode.Manual, fmt.Sprintf("handed over to a person (%s), and nobody is at the terminal to take over", reason), true)
		return
	}
	e.askLater(why, reason)
}

func (e *Engine) manualDeadline() time.Time {
	from := e.handOver.since
	if e.changedAt.After(from) {
		from = e.changedAt
	}
	return from.Add(e.pb.Timeouts.Prompt)
}

// notRedrawn drops the danger hits in the part of a redrawn line that did not
// change: they were hits when that text was first seen (a spinner in front of a
// dangerous command does not make the command new).
func (e *Engine) notRedrawn(hits []dangerHit, text []byte) []dangerHit {
	if len(e.redrawn) == 0 {
		return hits
	}
	kept := hits[:0]
	for _, h := range hits {
		if !stream.Unchanged(e.redrawn, text, h.at, h.at+len(h.text)) {
			kept = append(kept, h)
		}
	}
	e.redrawn = nil
	return kept
}

// tail returns the last few hundred bytes of output, answered or not, or the
// screen, for error messages, with the secrets masked.
func (e *Engine) tail() string { return e.view.tail(e.redact) }

// redact masks the run's secrets in text (see Config.Redact).
func (e *Engine) redact(text string) string {
	if e.cfg.Redact == nil {
		return text
	}
	return e.cfg.Redact(text)
}

// excerpt is the end of text for an event, with the secrets masked before it is
// cut.
func (e *Engine) excerpt(text string) string {
	return excerpt(e.redact(text))
}
