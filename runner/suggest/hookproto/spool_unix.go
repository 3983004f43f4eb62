//go:build unix

package hookproto

import "syscall"

// noFollow makes an open refuse a symbolic link.
const noFollow = syscall.O_NOFOLLOW
