// Waiting for output with poll(2), which every Unix has: its timeout is in
// whole milliseconds. Provides pollReadable, the waitReadable of the Unixes
// without ppoll(2) (macOS, the BSDs: poll_bsd.go); it is built, and tested,
// on Linux too, which waits with ppoll(2) (poll_linux.go).

//go:build unix

package pty

import (
	"math"
	"time"

	"golang.org/x/sys/unix"
)

// pollReadable is waitReadable with poll(2). The timeout is rounded up to the
// next millisecond, so a wait never ends before it: ended early, the caller
// would find its deadline not yet passed and poll again at once, in a loop.
func pollReadable(fd int, timeout time.Duration) (int, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	return unix.Poll(fds, pollMillis(timeout))
}

// pollMillis is timeout in poll(2)'s milliseconds: rounded up, 0 for none
// (or less), and at most what poll takes (about 24 days; no wait here comes
// near it, and -1 would mean forever).
func pollMillis(timeout time.Duration) int {
	if timeout <= 0 {
		return 0
	}
	ms := timeout / time.Millisecond
	if timeout%time.Millisecond != 0 {
		ms++
	}
	return int(min(ms, math.MaxInt32))
}
