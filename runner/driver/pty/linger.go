// Lingering after the program exited: how long its descendants may keep the
// terminal open while quiet before the output counts as over. One clock,
// lingerClock, measures the quiet for every way of reading: ReadBefore (and
// so Read) asks it how long it may still wait, and the linger watch asks it
// when to end a ReadWait.

package pty

import (
	"sync/atomic"
	"time"
)

// lingerClock measures the quiet after the program exited: the time since
// its exit or since the last output read after it, whichever came later.
// Once that reaches period, the output is over. It is the one place that
// measures the linger; now is its time source.
type lingerClock struct {
	// period is Options.Linger; zero or less: no linger, the output ends
	// only when every holder of the terminal closed it.
	period time.Duration
	now    func() time.Time
	// quietSince is when the quiet began (Unix nanoseconds); 0 until the
	// program exited.
	quietSince atomic.Int64
}

// exited starts the quiet, once: the program exited.
func (c *lingerClock) exited() {
	c.quietSince.CompareAndSwap(0, c.now().UnixNano())
}

// output restarts the quiet if it has begun: output was read after the
// program exited. Before the exit it costs one atomic load, which keeps it
// off the path of every question and answer.
func (c *lingerClock) output() {
	if c.quietSince.Load() != 0 {
		c.quietSince.Store(c.now().UnixNano())
	}
}

// left reports how much of the linger period is left (zero or less: the
// output is over), and whether the clock runs at all: it runs once the
// program exited, if there is a linger period.
func (c *lingerClock) left() (time.Duration, bool) {
	since := c.quietSince.Load()
	if c.period <= 0 || since == 0 {
		return 0, false
	}
	return c.period - c.now().Sub(time.Unix(0, since)), true
}

// lingerWatch ends a ReadWait that waits for the descendants of the exited
// program: once the linger clock says they have been quiet for the linger
// period, the output is over.
func (p *Process) lingerWatch() {
	defer p.wg.Done()
	t := time.NewTimer(p.linger.period)
	defer t.Stop()
	for {
		select {
		case <-p.closing:
			return
		case <-t.C:
		}
		left, over := p.lingerDue()
		if over {
			return
		}
		t.Reset(left)
	}
}

// lingerDue is what the linger watch does when its timer fires. It reports
// how much of the linger period is left, or that the watch is over: the
// output ended, or the linger did and the reader was woken.
func (p *Process) lingerDue() (time.Duration, bool) {
	if p.eof.Load() {
		return 0, true
	}
	if left, _ := p.linger.left(); left > 0 {
		return left, false
	}
	p.lingered.Store(true)
	p.wakeReader()
	return 0, true
}
