// Package hublink is how a run reaches the per-user hub, which owns the
// channels a person answers from (Telegram, ntfy) once for every run of
// the user, on this machine and on the machines joined to it over SSH (see
// docs/hub.md). A run dials the hub's Unix socket, says who it is, and
// streams its questions; the hub calls back with the answers people give,
// which the run takes through its desk like any other. A run whose hub is
// away keeps working, answerable at its terminal and with clai answer, and
// links again when the hub is back.
//
// The wire is JSON lines, one Frame each, each at most MaxFrame bytes.
package hublink

import (
	"path/filepath"

	"github.com/clai-sh/clai/runner/ask"
)

// Version is the wire's version, which a Hello carries.
const Version = 1

// MaxFrame bounds a frame on the wire, in bytes.
const MaxFrame = 4 << 20

// MaxClosed bounds the questions a Hello tells closed while its run was
// away from the hub.
const MaxClosed = 16

// SocketName is the base name of the hub's socket in the runtime folder.
const SocketName = "hub.sock"

// Socket is the hub's socket in the runtime folder dir.
func Socket(dir string) string { return filepath.Join(dir, SocketName) }

// Frame is one line of the wire; exactly one of its fields is set.
type Frame struct {
	// Hello is a run's first frame.
	Hello *Hello `json:"hello,omitempty"`
	// Update is something that happened in the run, with its session as it
	// stands after it (run to hub).
	Update *Update `json:"update,omitempty"`
	// Call asks the run for an answer to be typed or its screen (hub to
	// run); Reply is the run's reply to it.
	Call  *Call  `json:"call,omitempty"`
	Reply *Reply `json:"reply,omitempty"`
	// Control is a command's first frame in place of a Hello: "status" or
	// "stop"; Status is the hub's reply.
	Control string  `json:"control,omitempty"`
	Status  *Status `json:"status,omitempty"`
	// Refused is the hub's refusal of a Hello or a Control, and why; the
	// connection closes after it.
	Refused string `json:"refused,omitempty"`
}

// Hello is what a run says of itself as it links, and again each time it
// links after the hub was away.
type Hello struct {
	Version int `json:"version"`
	// Session is the run's session as it stands, with its open question.
	Session ask.Session `json:"session"`
	// Channels are the names of the hub's channels the run's playbook uses;
	// nil is every one.
	Channels []string `json:"channels"`
	// Closed are the questions that closed while the run was away from the
	// hub, the newest MaxClosed, each with how.
	Closed []*ask.Question `json:"closed,omitempty"`
}

// Update is an update of the run and its session after it.
type Update struct {
	Update  ask.Update  `json:"update"`
	Session ask.Session `json:"session"`
}

// Call is the hub's request of a run: an answer to type, or the screen.
type Call struct {
	ID     uint64      `json:"id"`
	Answer *ask.Answer `json:"answer,omitempty"`
	Screen bool        `json:"screen,omitempty"`
}

// Reply is a run's reply to the Call of the same ID: what was typed, or the
// refusal, or the screen.
type Reply struct {
	ID      uint64       `json:"id"`
	Sent    *ask.Sent    `json:"sent,omitempty"`
	Refusal *ask.Refusal `json:"refusal,omitempty"`
	Error   string       `json:"error,omitempty"`
	Screen  *ask.Screen  `json:"screen,omitempty"`
}

// Status is what the hub says of itself.
type Status struct {
	PID      int           `json:"pid"`
	Host     string        `json:"host"`
	Since    string        `json:"since"`
	Channels []string      `json:"channels"`
	Targets  []string      `json:"targets"`
	Sessions []ask.Session `json:"sessions"`
}
