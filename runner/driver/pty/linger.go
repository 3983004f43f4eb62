// Lingering after the program exited: how long its descendants may keep the
// terminal open while quiet before the output counts as over. One clock,
// lingerClock, measures the quiet for every way of reading: ReadBefore (and
// so Read) and ReadWait ask it, once nothing is left to read, how long they
// may still wait, and the linger watch asks it when to wake a ReadWait that
// waits in the kernel. What the terminal holds is always read first: however
// late a reader comes, the output is over only when nothing is left.

package pty

import (
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
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

// lingerWatch ends a ReadWait that waits in the kernel for the descendants
// of the exited program: once the linger clock says they have been quiet for
// the linger period, the output is over. (A read begun after the exit finds
// the master non-blocking and asks the clock itself.)
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
// output ended, or the linger did. Then a ReadWait that waits, and could be
// blocked in the kernel, is woken to end, unless the terminal holds output:
// that is read first (its reader is slow to run, not waiting for it), and the
// reads after it are the master's non-blocking ones.
func (p *Process) lingerDue() (time.Duration, bool) {
	if p.eof.Load() {
		return 0, true
	}
	if left, _ := p.linger.left(); left > 0 {
		return left, false
	}
	if p.waiting.Load() && !p.holdsOutput() {
		p.lingered.Store(true)
		p.wakeReader()
	}
	return 0, true
}

// holdsOutput reports whether the terminal holds output not yet read (or is
// at its end, which a read reports).
func (p *Process) holdsOutput() bool {
	var ready int
	err := control(p.master, func(fd int) error {
		for {
			n, err := waitReadable(fd, 0)
			if !errors.Is(err, unix.EINTR) {
				ready = n
				return err
			}
		}
	})
	return err == nil && ready > 0
}
