package daemon

import (
	"sync"
	"time"
)

// spoolRetryMax bounds the wait between two tries of a spool whose commit
// failed; the first wait is Config.SpoolEvery, and each failure doubles it.
const spoolRetryMax = 30 * time.Second

// writes is how the daemon's commits fare. An episode of failures starts
// with a commit that fails and ends with the next one that succeeds: the log
// tells of each start and end once, not of each try. While the spool is
// behind (a commit of its events failed), it is read again only when its
// backoff is over.
type writes struct {
	mu   sync.Mutex
	logf func(format string, args ...any)
	base time.Duration

	failing  bool
	since    time.Time
	lastErr  string
	failures int64

	behind  bool
	tries   int
	retryAt time.Time
}

// failedWrite records a commit that failed with err.
func (w *writes) failedWrite(now time.Time, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures++
	w.lastErr = err.Error()
	if w.failing {
		return
	}
	w.failing, w.since = true, now
	w.logf("writes to the database fail: %v; the shells' spool keeps the commands and is read again with backoff, "+
		"and POST /ingest answers what it drops (this is said once until writes succeed again)", err)
}

// succeeded records a commit that succeeded.
func (w *writes) succeeded(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.failing {
		return
	}
	w.logf("writes to the database succeed again, after %s of failures", now.Sub(w.since).Round(time.Millisecond))
	w.failing, w.lastErr = false, ""
}

// spoolFailed records a read of the spool that stopped on a failed commit,
// and when to try again: base, doubled at each failure, spoolRetryMax at
// most.
func (w *writes) spoolFailed(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.behind = true
	w.tries++
	wait := w.base << min(w.tries-1, 16)
	if wait <= 0 || wait > spoolRetryMax {
		wait = spoolRetryMax
	}
	w.retryAt = now.Add(wait)
}

// spoolCaughtUp records a read of the spool that committed all it read.
func (w *writes) spoolCaughtUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.behind, w.tries = false, 0
}

// spoolDue tells whether the spool is to be read now: always, unless it is
// behind and its backoff is not over.
func (w *writes) spoolDue(now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.behind || !now.Before(w.retryAt)
}

// writeHealth is what /healthz tells of the writes.
type writeHealth struct {
	behind   bool
	lastErr  string
	failures int64
}

func (w *writes) health() writeHealth {
	w.mu.Lock()
	defer w.mu.Unlock()
	return writeHealth{behind: w.behind, lastErr: w.lastErr, failures: w.failures}
}
