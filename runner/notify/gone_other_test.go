//go:build !linux

package notify_test

import "testing"

// assertGone is checked on Linux only, through /proc.
func assertGone(*testing.T, string) {}
