package main

import "golang.org/x/sys/unix"

// ioctlGetTermios is the ioctl that reads a terminal's modes (tcgetattr).
const ioctlGetTermios = unix.TCGETS
