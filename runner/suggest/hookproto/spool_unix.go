//go:build unix

package hookproto

import "syscall"

// openFlags make an open of a spool file refuse a symbolic link, and not
// wait on a FIFO put in a file's place.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
