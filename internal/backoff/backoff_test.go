package backoff

import (
	"testing"
	"time"
)

// The steps double from a second to half a minute, and stay there.
func TestStep(t *testing.T) {
	t.Parallel()
	want := []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if got := Step(i); got != w {
			t.Errorf("Step(%d) = %v, want %v", i, got, w)
		}
	}
	if Step(1000) != Max {
		t.Errorf("Step(1000) = %v", Step(1000))
	}
}

// A jittered wait lies between half the step and the step.
func TestJitter(t *testing.T) {
	t.Parallel()
	for range 1000 {
		if j := Jitter(4 * time.Second); j < 2*time.Second || j > 4*time.Second {
			t.Fatalf("Jitter(4s) = %v", j)
		}
	}
	if Jitter(1) != 1 || Jitter(0) != 0 {
		t.Error("a step of a nanosecond or none is kept")
	}
}
