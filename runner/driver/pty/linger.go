// Lingering after the program exited: how long its descendants may keep the
// terminal open while quiet before the output counts as over.

package pty

import (
	"time"
)

// lingerWatch ends a ReadWait that waits for the descendants of the exited
// program: once they have been quiet for the linger period, the output is over.
func (p *Process) lingerWatch(exitedAt time.Time) {
	defer p.wg.Done()
	t := time.NewTimer(p.linger)
	defer t.Stop()
	for {
		select {
		case <-p.closing:
			return
		case <-t.C:
		}
		if p.eof.Load() {
			return
		}
		quiet := exitedAt
		if r := p.lastRead.Load(); r > quiet.UnixNano() {
			quiet = time.Unix(0, r)
		}
		if wait := p.linger - time.Since(quiet); wait > 0 {
			t.Reset(wait)
			continue
		}
		p.lingered.Store(true)
		p.wakeReader()
		return
	}
}
