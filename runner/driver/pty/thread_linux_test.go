package pty

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestTheStartingThreadReaps: the thread that forks the program is the one
// that then waits for its end, so that a run holds one thread for both and
// the parent-death signal's thread lives exactly as long as the program.
func TestTheStartingThreadReaps(t *testing.T) {
	t.Parallel()
	reaper := make(chan func(), 1)
	started, reaped := 0, make(chan int, 1)
	if err := startOnOwnThread(func() error { started = unix.Gettid(); return nil }, reaper); err != nil {
		t.Fatal(err)
	}
	reaper <- func() { reaped <- unix.Gettid() }
	if tid := <-reaped; tid != started {
		t.Fatalf("the program was started on thread %d and reaped on %d", started, tid)
	}
}
