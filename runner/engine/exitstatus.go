package engine

import "fmt"

// ExitStatus is how the program ended, as the engine observes it. The session
// converts its driver's status into one.
type ExitStatus struct {
	// Code is the exit code, or 128+N when the program was ended by signal
	// N, as shells report it (137 for SIGKILL).
	Code int
	// Signal names the signal that ended the program ("killed",
	// "terminated", "hangup"), or is empty when it exited by itself.
	Signal string
	// PaneClosed is set when the tmux pane the program ran in was closed
	// while clai drove it: how the program ended is not known, and Code is -1.
	PaneClosed bool
}

// Signaled reports whether the program was ended by a signal.
func (s ExitStatus) Signaled() bool { return s.Signal != "" }

// String describes the status for events and reports: "exit 0", "exit 137
// (killed)", "the pane closed".
func (s ExitStatus) String() string {
	if s.PaneClosed {
		return "the pane closed"
	}
	if s.Signal != "" {
		return fmt.Sprintf("exit %d (%s)", s.Code, s.Signal)
	}
	return fmt.Sprintf("exit %d", s.Code)
}
