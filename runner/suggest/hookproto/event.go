// Package hookproto is the wire format between the shell hooks and the
// suggestion daemon: the events a hook sends (one JSON object a line), the
// daemon's endpoint (a Unix socket, or a named pipe on Windows), Send, which
// hands events to the daemon without ever waiting for it, and Suggest, the
// one client of POST /suggest, which clai suggest and clai-hook suggest share.
//
// It imports only the standard library and two small packages of clai's
// (the peer check of a Unix socket, and how a terminal shows a line), so that
// clai-hook, which a shell runs at its prompts, stays small and starts fast.
package hookproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Version is the version of the event format this package writes. A reader
// skips events of a greater version.
const Version = 1

// MaxLine is the longest event line, in bytes, newline left out: a reader
// skips longer lines, and Send does not send them.
const MaxLine = 256 << 10

// The types of event.
const (
	// TypeCommand is a command the shell ran, with its exit status and
	// duration.
	TypeCommand = "command"
	// TypeSessionStart is a shell starting its session.
	TypeSessionStart = "session_start"
	// TypeSessionEnd is a shell ending.
	TypeSessionEnd = "session_end"
)

// UnknownDuration is the DurationMS of a command whose duration the shell
// could not measure.
const UnknownDuration = -1

// Event is one thing a shell hook tells the daemon.
type Event struct {
	// V is the format's version; Version when written by this package.
	V int
	// Type is one of TypeCommand, TypeSessionStart and TypeSessionEnd.
	Type string
	// Session is the shell's session id.
	Session string
	// Shell is bash, zsh or fish.
	Shell string
	// PID is the shell's process id.
	PID int
	// TSMillis is when the event happened: for a command, when it ended;
	// milliseconds since the Unix epoch.
	TSMillis int64
	// Cwd is the shell's working folder: for a command, the one it ended in.
	Cwd string
	// Cmd, Exit and DurationMS are those of a command (TypeCommand only):
	// the command line as the user typed it, its exit status, and how long
	// it ran in milliseconds (UnknownDuration when the shell cannot tell).
	Cmd        string
	Exit       int
	DurationMS int64
	// IfNew is set on a command the shell's history did not grow by (bash
	// with ignoredups, erasedups or ignorespace, which cannot be told
	// apart): the daemon takes it only if it is not the session's last
	// command. It comes only from the spool.
	IfNew bool
}

// wireEvent is an Event as JSON: cmd, exit and duration_ms only for commands.
type wireEvent struct {
	V          int    `json:"v"`
	Type       string `json:"type"`
	Session    string `json:"session"`
	Shell      string `json:"shell"`
	PID        int    `json:"pid"`
	TSMillis   int64  `json:"ts_ms"`
	Cwd        string `json:"cwd"`
	Cmd        string `json:"cmd,omitempty"`
	Exit       *int   `json:"exit,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
}

// Lossy returns s as valid UTF-8: each run of bytes that is no UTF-8 becomes
// one U+FFFD.
func Lossy(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// AppendLine appends e to buf as one line of JSON, its newline included. Its
// strings are made valid UTF-8 first (see Lossy). A line longer than MaxLine
// is an error, and buf is returned unchanged.
func AppendLine(buf []byte, e Event) ([]byte, error) {
	w := wireEvent{
		V: e.V, Type: e.Type, Session: Lossy(e.Session), Shell: Lossy(e.Shell),
		PID: e.PID, TSMillis: e.TSMillis, Cwd: Lossy(e.Cwd),
	}
	if w.V == 0 {
		w.V = Version
	}
	if e.Type == TypeCommand {
		exit, duration := e.Exit, e.DurationMS
		w.Cmd, w.Exit, w.DurationMS = Lossy(e.Cmd), &exit, &duration
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return buf, fmt.Errorf("encode %s event: %w", e.Type, err)
	}
	if n := line.Len() - 1; n > MaxLine {
		return buf, fmt.Errorf("%s event of %d bytes: %w", e.Type, n, ErrTooLong)
	}
	return append(buf, line.Bytes()...), nil
}

// ErrTooLong is the error of an event line longer than MaxLine.
var ErrTooLong = fmt.Errorf("longer than %d bytes", MaxLine)

// ErrNewer is the error of an event of a version greater than Version, which
// a reader skips.
var ErrNewer = errors.New("event of a newer version")

// ParseLine reads one event line (its newline may be left on). Unknown
// fields are ignored; a missing duration_ms is UnknownDuration. An event of a
// version greater than Version is ErrNewer, a line longer than MaxLine
// ErrTooLong; an event without a type or of a type this version does not know
// is an error too.
func ParseLine(line []byte) (Event, error) {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	if len(line) > MaxLine {
		return Event{}, fmt.Errorf("event line of %d bytes: %w", len(line), ErrTooLong)
	}
	var w wireEvent
	if err := json.Unmarshal(line, &w); err != nil {
		return Event{}, fmt.Errorf("event line: %w", err)
	}
	if w.V > Version {
		return Event{}, fmt.Errorf("event of version %d: %w", w.V, ErrNewer)
	}
	if w.V < 1 {
		return Event{}, fmt.Errorf("event line: version %d, want 1 to %d", w.V, Version)
	}
	switch w.Type {
	case TypeCommand, TypeSessionStart, TypeSessionEnd:
	case "":
		return Event{}, errors.New("event line: no type")
	default:
		return Event{}, fmt.Errorf("event line: unknown type %q", w.Type)
	}
	e := Event{V: w.V, Type: w.Type, Session: w.Session, Shell: w.Shell, PID: w.PID, TSMillis: w.TSMillis, Cwd: w.Cwd,
		Cmd: w.Cmd, DurationMS: UnknownDuration}
	if w.Exit != nil {
		e.Exit = *w.Exit
	}
	if w.DurationMS != nil && *w.DurationMS >= 0 {
		e.DurationMS = *w.DurationMS
	}
	return e, nil
}
