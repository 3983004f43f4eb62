// Package pace bounds the time a function takes relative to a reference run on
// the same input, for tests that must catch a blowup (quadratic work) without
// asserting anything of the wall clock itself.
package pace

import (
	"testing"
	"time"
)

// rounds is how many times each function runs; the shortest run counts.
const rounds = 3

// Within fails t unless mine takes at most factor times as long as base (plus
// slack, against the noise of very short runs). The two run in turn, so that
// both see the same load on the machine, on a goroutine of their own: if they
// have not ended by deadline, t fails then instead of waiting for a blowup to
// end.
func Within(t testing.TB, factor int, slack, deadline time.Duration, base, mine func()) {
	t.Helper()
	type result struct{ base, mine time.Duration }
	done := make(chan result, 1)
	go func() {
		var r result
		r.base, r.mine = time.Duration(1<<63-1), time.Duration(1<<63-1)
		for range rounds {
			r.base = min(r.base, timed(base))
			r.mine = min(r.mine, timed(mine))
		}
		done <- r
	}()
	select {
	case r := <-done:
		if r.mine > time.Duration(factor)*r.base+slack {
			t.Fatalf("took %v against %v: more than %d times as long", r.mine, r.base, factor)
		}
		t.Logf("took %v against %v", r.mine, r.base)
	case <-time.After(deadline):
		t.Fatalf("did not end within %v", deadline)
	}
}

// timed returns how long f took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
