package sessions

import (
	"runtime"
	"testing"
	"time"
)

// waitFor waits until cond holds, yielding between checks; a generous
// deadline only catches a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("gave up waiting")
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

// receive receives from ch; a generous deadline only catches a hang.
func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal("gave up waiting")
		panic("unreachable")
	}
}
