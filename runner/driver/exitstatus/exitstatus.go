// Package exitstatus says how a program ended: the one type the drivers report
// and the engine observes, so that neither depends on the other.
package exitstatus

import "fmt"

// Status is how a program ended.
type Status struct {
	// Code is the exit code, or 128+N when the program was ended by signal
	// N, as shells report it (137 for SIGKILL).
	Code int
	// Signal names the signal that ended the program ("killed",
	// "terminated", "hangup"), or is empty when it exited by itself.
	Signal string
	// PaneClosed is set when the tmux pane the program ran in was closed
	// (the pane, its window or its session killed) while clai drove it: how
	// the program ended is not known, and Code is -1.
	PaneClosed bool
}

// Signaled reports whether the program was ended by a signal.
func (s Status) Signaled() bool { return s.Signal != "" }

// String describes the status for events, logs and reports: "exit 0",
// "exit 137 (killed)", "the pane closed".
func (s Status) String() string {
	if s.PaneClosed {
		return "the pane closed"
	}
	if s.Signal != "" {
		return fmt.Sprintf("exit %d (%s)", s.Code, s.Signal)
	}
	return fmt.Sprintf("exit %d", s.Code)
}
