package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// The wire format of the hooks' events: one JSON object a line.
const (
	wireVersion = 1
	// maxLine is the longest event line taken; a longer one is skipped.
	maxLine = 256 << 10
	// sessionsFolder holds, in the socket's folder, one file a shell named
	// after its process id, with the session id the daemon assigned it.
	sessionsFolder = "shell-sessions"
)

// The types of events.
const (
	typeCommand      = "command"
	typeSessionStart = "session_start"
	typeSessionEnd   = "session_end"
)

// wireEvent is an event line as a hook sends it.
type wireEvent struct {
	V          int    `json:"v"`
	Type       string `json:"type"`
	Session    string `json:"session"`
	Shell      string `json:"shell"`
	PID        int    `json:"pid"`
	TSMillis   int64  `json:"ts_ms"`
	Cwd        string `json:"cwd"`
	Cmd        string `json:"cmd"`
	Exit       int    `json:"exit"`
	DurationMS *int64 `json:"duration_ms"`
}

// errNewer is the error of an event of a newer version than the daemon's.
var errNewer = errors.New("event of a newer version")

// parseLine decodes one event line.
func parseLine(line []byte) (wireEvent, error) {
	var w wireEvent
	if err := json.Unmarshal(line, &w); err != nil {
		return w, fmt.Errorf("event line: %w", err)
	}
	if w.V > wireVersion {
		return w, fmt.Errorf("event of version %d: %w", w.V, errNewer)
	}
	if w.V < 1 {
		return w, fmt.Errorf("event line: version %d, want 1", w.V)
	}
	switch w.Type {
	case typeCommand, typeSessionStart, typeSessionEnd:
	default:
		return w, fmt.Errorf("event line: unknown type %q", w.Type)
	}
	return w, nil
}

// writeSessionFile writes id as the session of the shell pid, in dir's
// sessions folder: a whole file at once, renamed into place.
func writeSessionFile(dir string, pid int, id string) error {
	folder := filepath.Join(dir, sessionsFolder)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	tmp, err := os.CreateTemp(folder, ".tmp-*")
	if err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	_, werr := tmp.WriteString(id + "\n")
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(folder, strconv.Itoa(pid)))
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("session file: %w", werr)
	}
	return nil
}
