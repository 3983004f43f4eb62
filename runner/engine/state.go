// Package engine is clai's engine: it drives a program from a compiled playbook.
//
// The Engine is pure. It takes observations — output bytes, the passing of time,
// the program's exit, the user's keystrokes — each with the time it happened, and
// returns actions: bytes to send, events to log and report, ending the program,
// finishing the run. It never reads a clock, a terminal or a file, so live runs,
// dry runs, replays and tests all go through the same code in virtual time. The
// session in package runner connects an Engine to a driver, a clock, the user's
// terminal and the logs.
package engine

import (
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// State is where a run is (docs/running.md, "States").
type State string

// The states of a run.
const (
	Starting  State = "starting"
	Running   State = "running"
	Prompting State = "prompting"
	Nudging   State = "nudging"
	Manual    State = "manual"
	Done      State = "done"
	TimedOut  State = "timeout"
	Failed    State = "failed"
	Aborted   State = "aborted"
)

// Result is how a run ended.
type Result struct {
	// State is the final state: done, timeout, failed or aborted, or manual and
	// prompting for a run that ended waiting for a person.
	State    State
	ExitCode int
	Reason   string
	// DecidedBy names who took the last hand-over to a person (a person's
	// answer after it, or the person typing at the terminal), "" when there
	// was none or nobody took it. A run whose hand-over was taken ends with
	// the program's own outcome; one nobody took ends in MANUAL (exitcode.Manual).
	DecidedBy string
	// Child is how the program ended; nil when it was still running and clai
	// ended it (the driver reports the final status).
	Child *ExitStatus
}

// Action is something the engine asks for. It is one of *Send, *Event, Kill and
// Finish. A *Send or an *Event points into the engine's own memory: like the
// slice of actions, it is valid until the engine's next call (copy what you keep).
type Action interface{ action() }

// Send asks for keystrokes to be typed into the program: text as it is, then
// named keys, which the driver encodes (see keys.Keystrokes).
type Send struct {
	// Keystrokes is what to type; for a secret it is what follows the secret
	// ("\r").
	keys.Keystrokes
	// Secret, when its Source is set, is read and typed before the keystrokes;
	// its value never appears in an action, an event or a log.
	Secret playbooks.SecretRef
	// DryRun marks a send that must not reach the program: it is only reported.
	DryRun bool
	// Reply marks the answer a terminal gives to the program's query (cursor
	// position, device attributes): it goes out even in a dry run, since without
	// it the program would hang, and it is not one of clai's decisions.
	Reply bool
	// Person marks a person's answer to a question (see Engine.Answer): it is
	// what they typed, not one of clai's decisions.
	Person bool
	// AwaitsReaction marks keystrokes typed while the engine awaits the
	// program's reaction to its last answer, which it sends once more without
	// one. The session finds whether the terminal echoes as it types them, as
	// the terminal stands before the program reads them, and tells the engine
	// so (Engine.Echo) before its next call: with echo off, silence is the
	// reaction.
	AwaitsReaction bool
	// whole keeps text that ends with Enter in one write whatever
	// settings.enter says: a menu's number, not a line.
	whole bool
}

// Kill asks for the program to be ended.
type Kill struct{ Reason string }

// Finish ends the run.
type Finish struct{ Result Result }

// Event is a line of the run's timeline, for logs and reports.
type Event struct {
	// At is the time since the run started.
	At time.Duration
	// Name is the kind of event.
	Name  EventKind
	State State
	// From is the previous state of a state event.
	From State
	Rule string
	Step string
	// Excerpt is the text that matched, or the text around the event.
	Excerpt string
	// Sent describes what was sent ("y⏎", "keys down enter", "secret env:PASS").
	Sent   string
	Reason string
	// Bytes counts output or input bytes where that is what happened.
	Bytes int
	// Screen is the visible screen a decision was taken on (screen matching only).
	Screen string
	// Question is the question a question, answer or closed event is about,
	// as it stands after the event; it is not changed later.
	Question *ask.Question
	// Channel and By say through what and by whom an answer came.
	Channel, By string
}

func (*Send) action()  {}
func (Kill) action()   {}
func (Finish) action() {}
func (*Event) action() {}

// Final reports whether a run in state s has ended.
func (s State) Final() bool {
	switch s {
	case Done, TimedOut, Failed, Aborted:
		return true
	}
	return false
}
