// Package backoff is the schedule by which clai tries again what failed to
// reach a service (a notification target, a phone channel): the wait after
// each failure in a row doubles from First up to Max, and a random part of
// it is taken off, so that what failed together does not try again
// together.
package backoff

import (
	"math/rand/v2"
	"time"
)

// First is the step after the first failure; it doubles at each failure in
// a row, up to Max.
const (
	First = time.Second
	Max   = 30 * time.Second
)

// Step is the step after the n-th failure in a row (from 1): First doubled
// n-1 times, at most Max.
func Step(n int) time.Duration {
	return min(First<<min(max(n, 1)-1, 5), Max)
}

// Jitter is d less a random part of up to half of it: a wait between d/2
// and d.
func Jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d - rand.N(d/2+1)
}
