//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package main

import "golang.org/x/sys/unix"

// ioctlGetTermios is the ioctl that reads a terminal's modes (tcgetattr).
const ioctlGetTermios = unix.TIOCGETA
