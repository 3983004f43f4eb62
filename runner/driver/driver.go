// Package driver defines how clai talks to a running program, whatever carries
// the bytes: a pseudo-terminal it spawned (runner/driver/pty), an existing tmux
// pane, or a recorded session replayed in virtual time.
//
// The engine never touches a terminal itself: a driver produces the output
// bytes it observes and types what its actions send, keys by name until the
// driver encodes them (see keys.Keystrokes and Typer).
package driver

import (
	"errors"
	"github.com/clai-sh/clai/runner/driver/exitstatus"

	"github.com/clai-sh/clai/runner/driver/keys"
)

// ErrEnded is wrapped by the error of a Write or Resize that failed because
// the program ended or the driver was closed.
var ErrEnded = errors.New("program ended")

// Driver is a running program clai talks to.
//
// Read and Write may be called concurrently with each other and with Resize,
// Wait and Close; Read and Write are each used by one goroutine at a time.
type Driver interface {
	// Read reads output of the program, as its terminal shows it (escape
	// sequences included). It returns io.EOF once the program ended and all
	// of its output has been drained, and io.EOF after Close.
	Read(p []byte) (int, error)

	// Write sends bytes to the program's terminal input, as if typed:
	// "\r" is Enter, "\x03" is Ctrl-C. Once the program ended the error
	// wraps ErrEnded.
	Write(p []byte) (int, error)

	// Resize changes the terminal size the program sees (it gets SIGWINCH).
	Resize(rows, cols uint16) error

	// Wait blocks until the program ended and returns how it ended. A
	// program that exits with a non-zero code is not an error: the error is
	// for a failure to observe the program. Safe to call more than once and
	// from several goroutines; every call returns the same result.
	Wait() (ExitStatus, error)

	// Close ends the program if it is still running (politely first, then
	// by force after a grace period), waits for it, and releases everything
	// the driver holds. Idempotent; a pending Read returns io.EOF.
	Close() error
}

// WaitReader is a Driver that can wait for output in the kernel with no
// deadline (a blocking read): the wake-up that comes soonest and costs least when
// output arrives, so one goroutine can take output to the engine and the answer
// back without handing either to another goroutine. ReadWait returns io.EOF at
// the end of output like Read, and a pending ReadWait returns io.EOF after Close.
type WaitReader interface {
	Driver
	ReadWait(p []byte) (int, error)
}

// Sizer is a Driver whose terminal size is set by someone else (a tmux pane a person
// resizes): Size is the size of what the last Read returned.
type Sizer interface {
	Driver
	Size() (rows, cols uint16)
}

// Folder is a Driver that knows the working folder of a program it did not
// start (a tmux pane clai attached to).
type Folder interface {
	Driver
	// Dir returns the program's working folder, or "" when unknown.
	Dir() string
}

// ExitStatus is how a program ended (see exitstatus.Status).
type ExitStatus = exitstatus.Status

// Typer is a Driver that types keystrokes itself, naming each key to a
// terminal that encodes it (a tmux pane). A Driver that is no Typer is written
// the keystrokes' bytes (see keys.Keystrokes.AppendBytes).
type Typer interface {
	Driver
	// Type types the keystrokes; once the program ended the error wraps
	// ErrEnded, as Write's does.
	Type(k keys.Keystrokes) error
}
