// Reading the program's output from the master: Read and ReadBefore wait in
// waitReadable (ppoll(2) or poll(2), see poll_linux.go and poll_bsd.go), which
// a deadline ends; ReadWait waits in a blocking read(2), which Close and the
// linger watch end by interrupting it (see wakeReader).

package pty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/runner/driver"
)

// Read reads the program's output. It returns io.EOF once the program ended
// and its output is drained: when every holder of the terminal closed it, or
// Options.Linger after the program exited while a descendant keeps the
// terminal open, or after Close. Past a deadline set with SetReadDeadline it
// fails with an error wrapping os.ErrDeadlineExceeded.
func (p *Process) Read(b []byte) (int, error) {
	for {
		// Wake at least every readPoll to notice Close and a new deadline.
		wake := time.Now().Add(readPoll)
		caller := p.deadline.Load()
		if caller != 0 && caller < wake.UnixNano() {
			wake = time.Unix(0, caller)
		}
		n, err := p.ReadBefore(b, wake)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		if p.callerDeadlinePassed() {
			return 0, err
		}
	}
}

// readPoll bounds how long Read waits in one go, so that Close ends it.
const readPoll = 50 * time.Millisecond

// ReadBefore reads the program's output like Read, waiting at most until
// deadline: past it, it returns 0 and an error wrapping os.ErrDeadlineExceeded.
// Close does not interrupt it: callers bound the deadline. The latency of every
// question and answer depends on how directly it wakes (see openPTY).
func (p *Process) ReadBefore(b []byte, deadline time.Time) (int, error) {
	if p.eof.Load() || p.closed() {
		p.eof.Store(true)
		return 0, io.EOF
	}
	p.rdMu.Lock()
	defer p.rdMu.Unlock()
	p.rd = ioCall{b: b, deadline: deadline}
	cerr := p.raw.Control(p.rdFn)
	n, rerr := p.rd.n, p.rd.err
	p.rd = ioCall{}
	if cerr != nil {
		// The terminal was closed.
		p.eof.Store(true)
		return 0, io.EOF
	}
	return n, rerr
}

// controlRead is ReadBefore's callback for raw.Control, on p.rd.
func (p *Process) controlRead(fd uintptr) {
	p.rd.n, p.rd.err = p.readBefore(int(fd), p.rd.b, p.rd.deadline)
}

func (p *Process) readBefore(fd int, b []byte, deadline time.Time) (int, error) {
	for {
		left := time.Until(deadline)
		// The program exited: once its descendants have been quiet for the
		// linger period, the output is over.
		linger, lingering := p.linger.left()
		if lingering {
			left = min(left, linger)
		}
		// Wait for something to read. The master is blocking: a read is only
		// tried once the terminal is readable, at its end (POLLHUP) or in
		// error, so it does not block. Past the deadline or the linger, what
		// is already there is still read.
		ready, err := waitReadable(fd, left)
		switch {
		case err != nil && !errors.Is(err, unix.EINTR):
			return 0, fmt.Errorf("poll pty: %w", err)
		case ready > 0:
			n, err := p.readOnce(fd, b)
			if !errors.Is(err, unix.EAGAIN) {
				return n, err
			}
		case lingering && linger <= 0 && err == nil:
			p.eof.Store(true)
			return 0, io.EOF
		case left <= 0 && err == nil:
			return 0, fmt.Errorf("read pty: %w", os.ErrDeadlineExceeded)
		}
	}
}

// ReadWait reads the program's output like Read, but waits for it in a blocking
// read(2), with no deadline: of the ways to wait, the one that wakes soonest and
// costs least when output arrives, which is what the latency of every question
// and answer depends on. It returns io.EOF when every holder of the terminal
// closed it, Options.Linger after the program exited while a descendant keeps
// the terminal open, and after Close: those end a pending ReadWait. What the
// terminal holds is read before the linger ends the output, however late
// ReadWait comes to read it, and what a read brought is returned, however
// late ReadWait comes to look at it: the wake that ends a read waiting in the
// kernel is never taken for output (see wakeReader). Calls must not overlap
// with those of Read and ReadBefore.
func (p *Process) ReadWait(b []byte) (int, error) {
	p.rdMu.Lock()
	defer p.rdMu.Unlock()
	// waiting is set before closing and lingered are looked at, and Close sets
	// closing before it looks at waiting: whichever comes second sees the
	// other. The linger watch runs once the master is non-blocking: a ReadWait
	// it does not see waiting cannot wait in the kernel.
	p.waiting.Store(true)
	defer p.waiting.Store(false)
	for {
		if p.eof.Load() || p.closed() || p.lingered.Load() {
			p.eof.Store(true)
			return 0, io.EOF
		}
		p.rd = ioCall{b: b}
		cerr := p.raw.Control(p.rdWaitFn)
		n, err := p.rd.n, p.rd.err
		p.rd = ioCall{}
		if p.afterRead != nil {
			p.afterRead()
		}
		switch {
		case cerr != nil:
			// The terminal was closed.
			p.eof.Store(true)
			return 0, io.EOF
		case n > 0 && p.wokeByByte.Load():
			// Woken by a byte written to the terminal, which this read may
			// hold (see wakeByByte): it is past the end.
			p.eof.Store(true)
			return 0, io.EOF
		case n > 0:
			return n, nil
		case !errors.Is(err, unix.EAGAIN):
			return 0, err
		}
	}
}

// controlReadWait is ReadWait's callback for raw.Control, on p.rd. Once the
// program exited, or after Close, the master is non-blocking (see endWrites)
// and a read that finds nothing returns EAGAIN: then, after Close or once the
// linger watch ended the output, ReadWait ends; if the linger clock says the
// output is over, it is (io.EOF); if not, it waits in poll, at most until the
// linger ends and a while at a time, and ReadWait reads again.
func (p *Process) controlReadWait(fd uintptr) {
	p.rd.n, p.rd.err = p.readOnce(int(fd), p.rd.b)
	if !errors.Is(p.rd.err, unix.EAGAIN) || p.closed() || p.lingered.Load() {
		return
	}
	wait := readPoll
	if left, lingering := p.linger.left(); lingering {
		if left <= 0 {
			p.eof.Store(true)
			p.rd.err = io.EOF
			return
		}
		wait = min(wait, left)
	}
	_, _ = waitReadable(int(fd), wait)
}

// readOnce is one read(2) of the master. A read that finds nothing blocks until
// there is output or the terminal's end, or returns EAGAIN once endWrites made
// the master non-blocking.
func (p *Process) readOnce(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		switch {
		case n > 0:
			p.linger.output()
			return n, nil
		case err == nil || errors.Is(err, unix.EIO):
			// 0 bytes or EIO: every holder of the terminal closed it.
			p.eof.Store(true)
			return 0, io.EOF
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return 0, err
		default:
			return 0, fmt.Errorf("read pty: %w", err)
		}
	}
}

// wakeReader ends the wait of a ReadWait blocked in the kernel, which nothing
// else ends while a descendant holds the terminal open. The caller has first
// made the master non-blocking (see endWrites) and set what ReadWait finds on
// waking (closing or lingered). The wake is no byte of output: every thread of
// clai is interrupted by a signal the runtime takes in its stride (see
// interruptThreads), and the read it interrupts starts again, finds the master
// non-blocking and returns EAGAIN, or returns what the terminal holds. So a
// read that brought the program's last output before the wake keeps it, and
// nothing is written that could be taken for the program's. Only where
// threads cannot be interrupted so (no /proc) is a byte written to the
// terminal instead (see wakeByByte).
func (p *Process) wakeReader() {
	if !p.waiting.Load() {
		return
	}
	if interruptThreads() == nil {
		return
	}
	p.wakeByByte()
}

// wakeByByte is the wake of last resort: it writes a byte to the terminal,
// which arrives as output and ends the blocked read. wokeByByte is set first,
// so ReadWait takes what such a read brings for past the end: the byte may be
// in it, after output that a descendant wrote once the linger was over.
// Output the program wrote before it exited is not lost to it, as the linger
// watch wakes a reader only when nothing is left to read, but a read that
// brought it and returns only once the wake is written, on a machine too busy
// to run the reader within the linger period, is taken for past the end too.
func (p *Process) wakeByByte() {
	p.wokeByByte.Store(true)
	_ = control(p.master, func(fd int) error {
		t, err := openPeer(fd, p.name)
		if err != nil {
			return err
		}
		_, _ = unix.Write(t, []byte{0})
		return unix.Close(t)
	})
}

// callerDeadlinePassed reports whether the deadline of SetReadDeadline, if
// any, has passed.
func (p *Process) callerDeadlinePassed() bool {
	d := p.deadline.Load()
	return d != 0 && time.Now().UnixNano() >= d
}

// SetReadDeadline bounds the next Reads in time (and a pending one, within
// readPoll): past t, Read fails with an error wrapping os.ErrDeadlineExceeded.
// Once the program has exited, Options.Linger governs Read as well, so the
// remaining output is still drained to io.EOF.
func (p *Process) SetReadDeadline(t time.Time) error {
	var d int64
	if !t.IsZero() {
		d = t.UnixNano()
	}
	p.deadline.Store(d)
	return nil
}

var _ driver.WaitReader = (*Process)(nil)
