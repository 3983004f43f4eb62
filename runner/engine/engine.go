package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/stream"
)

// Config is what an Engine needs besides the playbook.
type Config struct {
	// Vars are the playbook variables after --var overrides.
	Vars map[string]string
	// Environ is the environment expressions see as env.
	Environ map[string]string
	// Interactive is set when a person sits at the terminal: MANUAL then hands
	// the program to them instead of waiting for the prompt timeout.
	Interactive bool
	// DryRun turns every send into a would-send.
	DryRun bool
	// Replay is set when the output comes from a recording: it goes on whatever
	// clai would have answered, so a dry run does not end at the first answer.
	Replay bool
	// Rows and Cols are the terminal size, for screen matching (default 24x80).
	Rows, Cols int
	// Attached is set when the program is not clai's (a tmux target pane): once the
	// steps are done and no rule is left to watch for, clai leaves it running.
	Attached bool
	// Redact masks the run's secrets in a text of the program's (nil: there
	// are none). The engine applies it before it cuts, quotes or keeps such a
	// text in an event, so no piece of a secret survives a cut or an escape.
	Redact func(string) string
	// Session is the id of the session, for its questions.
	Session string
	// Person is who sits at the terminal (a user name), for the questions
	// they answer there.
	Person string
	// Remote is set when a person may answer from elsewhere: a headless run
	// handed over to a person then waits timeouts.prompt for an answer
	// instead of ending at once.
	Remote bool
	// Project is the folder the program works in, an absolute path, which
	// readOnly(cmd) and projectCode(cmd) check paths against.
	Project string
}

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

// Echo observes whether the terminal echoes what is typed, as the session finds
// it when it types an answer, or before a Tick while the engine awaits a
// reaction (see AwaitsReaction). With echo off the program reads unseen, a
// password or a key, and shows nothing for it: silence is then no sign that
// the answer was missed, and it is never sent again.
func (e *Engine) Echo(on bool) {
	if !on {
		e.verifier.pending = false
	}
}

// AwaitsReaction reports whether the engine waits for the program to react to
// its last answer, which it would send once more without one.
func (e *Engine) AwaitsReaction() bool { return e.verifier.pending && e.result == nil }

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
		e.finish(Aborted, ExitInterrupted, "Ctrl-C twice", true)
		return e.end()
	}
	e.handOver.lastInterrupt = now
	e.toManual(ask.Interrupt, "Ctrl-C from the user")
	return e.end()
}

// Cancel ends the run from outside (a signal to clai, a cancelled context).
func (e *Engine) Cancel(now time.Time, reason string) []Action {
	e.begin(now)
	if e.result == nil {
		e.finish(Aborted, ExitInterrupted, reason, true)
	}
	return e.end()
}

// Exit observes the end of the program; all its output has been observed before.
func (e *Engine) Exit(now time.Time, status ExitStatus) []Action {
	e.begin(now)
	if e.result != nil {
		if e.result.Child == nil {
			e.result.Child = &status
		}
		return e.end()
	}
	e.exitCode = status.Code
	if tail := e.strip.Flush(nil); len(tail) > 0 {
		e.scanDanger(tail)
		e.view.add(tail)
		e.unmatched++
	}
	if e.unmatched > 0 || e.screen != nil && e.screen.changed() {
		// The last output is matched before the end: the view is final now.
		e.match()
	}
	e.emit(Event{Name: EventExit, Reason: status.String()})
	if e.result != nil {
		e.result.Child = &status
		return e.end()
	}
	// The end of output satisfies a step or case waiting for eof.
	for e.steps.idx < len(e.pb.Steps) {
		s := e.pb.Steps[e.steps.idx]
		if !stepAcceptsEOF(s) {
			break
		}
		e.emit(Event{Name: EventMatch, Step: stepName(s), Excerpt: "eof"})
		e.steps.idx++
	}
	ended := "the program ended (" + status.String() + ")"
	if status.PaneClosed {
		ended = "the pane closed"
	}
	if e.state == Manual && e.handOver.decidedBy == "" {
		e.finishChild(Manual, ExitManual, fmt.Sprintf("%s after the hand-over to a person (%s), which nobody took", ended, e.handOver.cause), status)
		return e.end()
	}
	// A hand-over a person took ends as the program does, saying who decided.
	decided := ""
	if e.handOver.decidedBy != "" {
		decided = fmt.Sprintf(", after %s decided at the hand-over (%s)", e.handOver.decidedBy, e.handOver.cause)
	}
	switch {
	case e.steps.idx < len(e.pb.Steps):
		s := e.pb.Steps[e.steps.idx]
		e.finishChild(Failed, ExitFailed, fmt.Sprintf("%s%s while step %s waited for %s; last output: %q", ended, decided, stepName(s), describeWait(s), e.tail()), status)
	case status.PaneClosed && e.cfg.Attached:
		// The person's pane is gone, and with it what clai watched over.
		e.finishChild(Done, ExitDone, "the pane closed"+decided, status)
	case status.PaneClosed:
		// The program clai started did not end by itself: its pane was killed.
		e.finishChild(Failed, ExitFailed, "the pane closed before its program ended"+decided, status)
	case status.Code != 0 || status.Signaled():
		e.finishChild(Failed, ExitFailed, "the program failed: "+status.String()+decided, status)
	default:
		e.finishChild(Done, ExitDone, "the program ended: "+status.String()+decided, status)
	}
	return e.end()
}

// isNudgeEcho reports whether text is no more than the echo of the last nudge.
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
func (e *Engine) end() []Action {
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
	e.handOver.since = e.now
	e.handOver.cause = reason
	e.handOver.decidedBy = ""
	e.setState(Manual, reason)
	if !e.cfg.Interactive && !e.cfg.Replay && !e.cfg.Remote {
		// Nobody can take over: waiting would only run into a timeout.
		e.finish(Manual, ExitManual, fmt.Sprintf("handed over to a person (%s), and nobody is at the terminal to take over", reason), true)
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

func (e *Engine) finish(s State, code int, reason string, kill bool) {
	e.finishChild(s, code, reason, ExitStatus{})
	e.result.Child = nil
	if kill {
		e.actions.out = append(e.actions.out, Kill{Reason: reason})
	}
}

func (e *Engine) finishChild(s State, code int, reason string, status ExitStatus) {
	e.asker.pending = false
	e.closeQuestion(ask.Ended)
	if s.Final() {
		e.setState(s, reason)
	}
	e.result = &Result{State: s, ExitCode: code, Reason: reason, Child: &status, DecidedBy: e.handOver.decidedBy}
	e.emit(Event{Name: EventFinish, State: s, Reason: reason})
	e.actions.out = append(e.actions.out, Finish{Result: *e.result})
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

func (e *Engine) currentStep() *playbooks.Step {
	if e.steps.idx < len(e.pb.Steps) {
		return e.pb.Steps[e.steps.idx]
	}
	return nil
}

func (e *Engine) advanceStep() {
	e.steps.idx++
	e.steps.tries = 0
	e.steps.since = e.now
	if e.cfg.Attached && e.steps.idx == len(e.pb.Steps) && len(e.pb.Rules) == 0 {
		e.finish(Done, ExitDone, "the steps are done; the pane goes on without clai", false)
	}
}

func stepName(s *playbooks.Step) string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("steps[%d]", s.Index)
}

func stepAcceptsEOF(s *playbooks.Step) bool {
	for _, c := range s.Branches() {
		if c.Match != nil && c.Match.HasEOF() {
			return true
		}
	}
	return false
}

func describeWait(s *playbooks.Step) string {
	if s.Expect != nil {
		return s.Expect.String()
	}
	parts := make([]string, 0, len(s.Cases))
	for _, c := range s.Cases {
		parts = append(parts, c.Match.String())
	}
	return "one of " + strings.Join(parts, ", ")
}
