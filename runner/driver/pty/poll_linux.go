// Waiting for output on Linux. Provides waitReadable (see platform.go) with
// ppoll(2), whose timeout is in nanoseconds, so a deadline is kept to the
// nanosecond. On macOS and the BSDs it is poll(2), in whole milliseconds
// (poll_bsd.go).

package pty

import (
	"time"

	"golang.org/x/sys/unix"
)

// waitReadable waits until fd is readable, at its end or in error, or until
// timeout passed (zero or less: it only looks). It reports how many
// descriptors are ready (0 or 1); EINTR is returned as it comes.
func waitReadable(fd int, timeout time.Duration) (int, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	ts := unix.NsecToTimespec(max(timeout, 0).Nanoseconds())
	return unix.Ppoll(fds, &ts, nil)
}
