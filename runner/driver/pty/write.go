// Writing to the program's terminal input: one write(2) at a time on the
// blocking master, keys typed as the bytes a terminal sends, and endWrites, which ends every write once the program
// exited or on Close.

package pty

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// Write sends b to the program's terminal input. Once the program exited, or
// after Close, it fails with an error wrapping driver.ErrEnded (the terminal
// itself would swallow the bytes); so does a Write waiting for room in the
// terminal's input when the program exits.
func (p *Process) Write(b []byte) (int, error) {
	p.wrMu.Lock()
	defer p.wrMu.Unlock()
	return p.write(b)
}

// Type writes the keystrokes as a terminal sends them: their Data, then each
// key's bytes, in the cursor mode the program asked for. It fails as Write does.
func (p *Process) Type(k keys.Keystrokes) error {
	p.wrMu.Lock()
	defer p.wrMu.Unlock()
	p.typed = k.AppendBytes(p.typed[:0])
	_, err := p.write(p.typed)
	clear(p.typed) // they may be a secret
	return err
}

// write is Write, under wrMu.
func (p *Process) write(b []byte) (int, error) {
	defer func() { p.wr = ioCall{} }()
	written := 0
	for written < len(b) {
		if p.exited.Load() || p.closed() {
			return written, fmt.Errorf("write pty: %w", driver.ErrEnded)
		}
		p.wr = ioCall{b: b[written:]}
		err := p.raw.Control(p.wrFn)
		n, werr := p.wr.n, p.wr.err
		if err != nil {
			return written, fmt.Errorf("write pty: %w", driver.ErrEnded)
		}
		written += max(n, 0)
		switch {
		case werr == nil, errors.Is(werr, unix.EINTR), errors.Is(werr, unix.EAGAIN):
		case errors.Is(werr, unix.EIO):
			return written, fmt.Errorf("write pty: %w", driver.ErrEnded)
		default:
			return written, fmt.Errorf("write pty: %w", werr)
		}
	}
	return written, nil
}

// controlWrite is Write's callback for raw.Control, on p.wr: one write(2). The
// master is blocking, so a write that finds no room in the terminal's input
// waits in the kernel until the program reads; endWrites ends that wait when
// the program exits and on Close.
func (p *Process) controlWrite(fd uintptr) {
	p.wr.n, p.wr.err = unix.Write(int(fd), p.wr.b)
}

// endWrites makes every write, pending or to come, return instead of waiting
// for room in the terminal's input: the master turns non-blocking for good,
// then a write waiting in the kernel is woken to see it (see wakeWriters). It
// is called once the program exited, and on Close: a program that reads
// nothing, or a descendant holding the terminal after the program exited,
// cannot keep a write waiting past those.
func (p *Process) endWrites() {
	_ = control(p.master, func(fd int) error {
		if err := unix.SetNonblock(fd, true); err != nil {
			return err
		}
		return wakeWriters(fd)
	})
}
