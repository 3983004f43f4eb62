package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/driver"
)

// readSize is the size of one read from the program; maxBatch bounds how much
// output is handed to the engine at once when it arrives faster than it is matched.
const (
	readSize = 64 << 10
	maxBatch = 256 << 10
)

// farAway is the timer of the select loop when the engine needs no tick;
// cancelCheck is how often the read loop looks for cancellation.
const (
	farAway     = time.Hour
	cancelCheck = 50 * time.Millisecond
)

// readLoop is the headless loop: one goroutine reads the program until the engine's
// next deadline, so output goes from the terminal to the engine and the answer back
// without a hand-over between goroutines.
func (s *session) readLoop(ctx context.Context, dr driver.DeadlineReader) {
	clock := s.o.clock
	buf := make([]byte, readSize)
	for s.result == nil {
		if ctx.Err() != nil {
			s.apply(s.engine.Cancel(clock.Now(), "clai was interrupted"))
			continue
		}
		// Wake at least this often to notice cancellation.
		deadline := clock.Now().Add(cancelCheck)
		if next, ok := s.engine.Deadline(); ok && next.Before(deadline) {
			deadline = next
		}
		n, err := dr.ReadBefore(buf, deadline)
		if n > 0 {
			s.recordOutput(buf[:n])
			_, _ = s.redact.Write(buf[:n])
			s.apply(s.engine.Output(clock.Now(), buf[:n]))
		}
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded):
			// The program is quiet: a good time to log.
			s.flush()
			s.apply(s.engine.Tick(clock.Now()))
		case ctx.Err() != nil:
			// Cancelling also ends the program: that is not its own end.
			s.apply(s.engine.Cancel(clock.Now(), "clai was interrupted"))
		default:
			// The end of output: the program ended.
			st, _ := dr.Wait()
			s.child = &st
			s.apply(s.engine.Exit(clock.Now(), st))
		}
	}
}

// selectLoop serves a terminal (keystrokes, size changes) or a virtual clock: a
// goroutine reads the program, and the loop waits for whichever comes first.
func (s *session) selectLoop(ctx, parent context.Context) error {
	clock := s.o.clock
	pool := sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}
	chunks := make(chan chunk, 16)
	output := (<-chan chunk)(chunks)
	// A driver that sizes its own screen (a tmux pane) says the size of each read.
	sizer, _ := s.drv.(driver.Sizer)
	var scrRows, scrCols uint16
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(chunks)
		for {
			buf := pool.Get().(*[]byte)
			n, err := s.drv.Read(*buf)
			if n > 0 {
				c := chunk{buf: buf, n: n}
				if sizer != nil {
					c.rows, c.cols = sizer.Size()
				}
				chunks <- c
			} else {
				pool.Put(buf)
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		_ = s.drv.Close()
		for range chunks {
			// Unblock the reader; it stops at the end of output.
		}
		wg.Wait()
	}()
	exited := make(chan driver.ExitStatus, 1)
	wait := func() {
		output = nil
		go func() {
			st, _ := s.drv.Wait()
			exited <- st
		}()
	}

	var input <-chan []byte
	var resized <-chan struct{}
	if t := s.o.terminal; t != nil {
		restore, err := t.Raw()
		if err != nil {
			return fmt.Errorf("terminal: %w", err)
		}
		defer restore()
		input = t.Input(ctx)
		resized = t.Resized(ctx)
	}

	timer := clock.NewTimer(farAway)
	defer timer.Stop()
	var batch []byte
	for s.result == nil {
		// This loop serves a person or a replay, not a race: log at once.
		s.flush()
		if next, ok := s.engine.Deadline(); ok {
			timer.Reset(max(next.Sub(clock.Now()), 0))
		} else {
			timer.Reset(farAway)
		}
		select {
		case c, ok := <-output:
			if !ok {
				wait()
				continue
			}
			if sizer != nil && (c.rows != scrRows || c.cols != scrCols) {
				scrRows, scrCols = c.rows, c.cols
				s.engine.Resize(int(scrRows), int(scrCols))
			}
			batch = append(batch[:0], c.bytes()...)
			pool.Put(c.buf)
			// Take what else has arrived: under a flood the engine matches once
			// per batch, not once per read. (A driver.Sizer's reads are whole
			// screens, each of its own size: they are matched one by one.)
		drain:
			for sizer == nil && len(batch) < maxBatch {
				select {
				case c, ok := <-output:
					if !ok {
						wait()
						break drain
					}
					batch = append(batch, c.bytes()...)
					pool.Put(c.buf)
				default:
					break drain
				}
			}
			s.recordOutput(batch)
			_, _ = s.redact.Write(batch)
			s.apply(s.engine.Output(clock.Now(), batch))
		case st := <-exited:
			s.child = &st
			if parent.Err() != nil {
				s.apply(s.engine.Cancel(clock.Now(), "clai was interrupted"))
				continue
			}
			s.apply(s.engine.Exit(clock.Now(), st))
		case in, ok := <-input:
			if !ok {
				input = nil
				continue
			}
			s.userInput(clock.Now(), in)
		case _, ok := <-resized:
			if !ok {
				resized = nil
				continue
			}
			if rows, cols := s.o.terminal.Size(); rows > 0 && sizer == nil {
				_ = s.drv.Resize(rows, cols)
				s.engine.Resize(int(rows), int(cols))
				if r := s.o.record; r != nil {
					_ = r.Resize(s.since(), int(cols), int(rows))
				}
			}
		case <-timer.C():
			s.flush()
			s.apply(s.engine.Tick(clock.Now()))
		case <-parent.Done():
			s.apply(s.engine.Cancel(clock.Now(), "clai was interrupted"))
		}
	}
	return nil
}

// chunk is a piece of output from the reader goroutine, in a pooled buffer.
type chunk struct {
	buf *[]byte
	n   int
	// rows and cols are the screen size the bytes are for, from a driver.Sizer.
	rows, cols uint16
}

func (c chunk) bytes() []byte { return (*c.buf)[:c.n] }
