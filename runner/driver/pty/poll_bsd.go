// Waiting for output on macOS and the BSDs. Provides waitReadable (see
// platform.go) with poll(2), as they have no ppoll(2) that every one of them
// serves: its timeout is in whole milliseconds, rounded up (see pollReadable),
// where Linux keeps a deadline to the nanosecond (poll_linux.go).

//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package pty

import "time"

// waitReadable waits until fd is readable, at its end or in error, or until
// timeout passed (zero or less: it only looks). It reports how many
// descriptors are ready (0 or 1); EINTR is returned as it comes.
func waitReadable(fd int, timeout time.Duration) (int, error) {
	return pollReadable(fd, timeout)
}
