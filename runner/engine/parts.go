package engine

import (
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// stepCursor is where the run is in the playbook's steps.
type stepCursor struct {
	// idx is the current step's index, len(steps) once all are done.
	idx int
	// since is when the current step became current; tries counts the
	// answers it sent.
	since time.Time
	tries int
}

// current returns the current step of steps, nil once all are done.
func (c *stepCursor) current(steps []*playbooks.Step) *playbooks.Step {
	if c.idx < len(steps) {
		return steps[c.idx]
	}
	return nil
}

// next makes the step after the current one current, from now.
func (c *stepCursor) next(now time.Time) {
	c.idx++
	c.tries = 0
	c.since = now
}

// firings counts the firings of each rule and danger rule by name, for
// expressions and the report (byName); byRule counts those of each rule by its
// place, which counts adds to byName when they are asked for (counted says how
// many of them it added already); last is when each rule last fired, for its
// cooldown.
type firings struct {
	byName  map[string]int
	byRule  []int
	counted []int
	last    map[*playbooks.Rule]time.Time
}

// newFirings returns the counts of a playbook with rules rules, none fired.
func newFirings(rules int) firings {
	return firings{
		byName:  map[string]int{},
		byRule:  make([]int, rules),
		counted: make([]int, rules),
		last:    map[*playbooks.Rule]time.Time{},
	}
}

// counts returns byName, with the latest firings of rules (the playbook's
// rules, in order) added.
func (f *firings) counts(rules []*playbooks.Rule) map[string]int {
	for i, r := range rules {
		if n := f.byRule[i] - f.counted[i]; n > 0 {
			f.byName[r.Name] += n
			f.counted[i] = f.byRule[i]
		}
	}
	return f.byName
}

// verifier checks that the program reacted to clai's last answer, and sends
// it once more if not.
type verifier struct {
	// pending is set after an answer until the program reacts to it, when a
	// reaction is due (see answerDue).
	pending bool
	// atQuestion tells act that the text it answers is the last thing shown:
	// the program showed nothing after its question.
	atQuestion bool
	// wait is how long after the last send (its answer) the program has to
	// react.
	wait    time.Duration
	retried bool
	// answer is the last answer, sent once more without a reaction.
	answer Send
}

// at returns when the program's reaction to an answer sent at sent is due.
func (v *verifier) at(sent time.Time) time.Time { return sent.Add(v.wait) }

// expect waits wait for a reaction to the answer just sent, if one is due;
// without one it is sent once more.
func (v *verifier) expect(due bool, wait time.Duration) {
	v.pending, v.retried, v.wait = due, false, wait
}

// retry reports whether the answer may be sent once more, and if so waits
// wait for a reaction to that: an answer is sent at most twice.
func (v *verifier) retry(wait time.Duration) bool {
	if v.retried {
		return false
	}
	v.retried, v.wait = true, wait
	return true
}

// nudger nudges a program gone idle: count nudges sent since its last output,
// the next due at next; last is the last one sent, whose echo is no sign of
// life.
type nudger struct {
	count int
	next  time.Time
	last  string
}

// take returns the next nudge of seq, whose last entry repeats, and makes the
// one after it due gap after now.
func (n *nudger) take(seq []string, now time.Time, gap time.Duration) string {
	text := seq[min(n.count, len(seq)-1)]
	n.count++
	n.last = text
	n.next = now.Add(gap)
	return text
}

// asker is the question open: q, nil when none is; seq counts the questions
// asked. pending is set while a hand-over waits for the output to settle to
// ask, for why and detail.
type asker struct {
	q   *ask.Question
	seq int
	// key is the region that asks of the open question as it opened (see
	// promptKey), and row the cursor's row then.
	key     string
	row     int
	pending bool
	why     ask.Reason
	detail  string
}

// promptWatch is what the prompt detector knows of the prompt shown.
type promptWatch struct {
	// checked is set once the detector looked at the output settled since
	// the program last wrote, or since the person answered at the terminal.
	checked bool
	// answeredLine is the line that asked on the screen the last answer
	// answered (clai's or a person's), and again when the prompt check
	// looks again at a screen that only redraws it (see redrawnAnswered).
	answeredLine string
	again        time.Time
	// since is when the run last went PROMPTING, and question the line
	// that asked then, masked, for the prompt timeout and its message.
	since    time.Time
	question string
}

// handOver is the run handed over to a person (MANUAL).
type handOver struct {
	since time.Time
	// cause is what handed the run over.
	cause string
	// decidedBy names who took the hand-over: answered after it or typed at
	// the terminal; "" until someone does.
	decidedBy string
	// lastInterrupt is when the person last pressed Ctrl-C.
	lastInterrupt time.Time
}

// begin hands the run over at now, for cause; nobody has taken it yet.
func (h *handOver) begin(now time.Time, cause string) {
	h.since, h.cause, h.decidedBy = now, cause, ""
}

// sources are the question sources' part (see External): asking is the source
// of the open question when it is an External; typing is an External's answer
// whose keystrokes are being typed.
type sources struct {
	asking *external
	typing *external
	// dialogs are the program's dialogs that sources claimed; expected
	// shows those they will, and a prompt question for one waits
	// expectWait for their claim, until heldUntil, with heldDetail.
	dialogs    []dialog
	expected   dialog
	expectWait time.Duration
	heldUntil  time.Time
	heldDetail string
	// closed is when a source's question last closed: until then the
	// program waited for a person, not idle.
	closed time.Time
}

// sender is what clai types and when.
type sender struct {
	// last is when clai last sent; sent is set once it has.
	last time.Time
	sent bool
	// wake is when a deferred answer may be sent.
	wake time.Time
	// held is a person's answer that waits for min_send_interval.
	held *Send
	// answers are the memory rendered answers take, in turn; moves is the
	// memory of the keys a choose presses.
	answers [2][]byte
	turn    int
	moves   []keys.Key
}

// dryRun is a headless dry run's wait: waiting is set after a would-send, as
// the program waits for an answer that never comes, and the run ends once its
// output settles (see dryEnd). Output meanwhile does not change that: without
// the answer the program cannot go past it.
type dryRun struct {
	waiting bool
	answer  string
}

// actions hold the actions of a call (out); events and sends hold what its
// *Event and *Send actions point to. All three are reused by the next call.
type actions struct {
	out    []Action
	events []Event
	sends  []Send
}

// reset empties the actions for a new call.
func (a *actions) reset() {
	a.out, a.events, a.sends = a.out[:0], a.events[:0], a.sends[:0]
}

// event adds an Event to the call's actions.
func (a *actions) event(ev Event) {
	a.events = append(a.events, ev)
	a.out = append(a.out, &a.events[len(a.events)-1])
}

// send adds a Send to the call's actions.
func (a *actions) send(s Send) {
	a.sends = append(a.sends, s)
	a.out = append(a.out, &a.sends[len(a.sends)-1])
}

// awaitReaction marks the call's keystrokes, but for a terminal's replies and
// what a dry run only reports, as typed while a reaction is awaited.
func (a *actions) awaitReaction() {
	for _, x := range a.out {
		if s, ok := x.(*Send); ok && !s.Reply && !s.DryRun {
			s.AwaitsReaction = true
		}
	}
}
