package runner

import (
	"context"
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

// farAway is the timer of a loop when the engine needs no tick; logEvery is how
// soon the headless loop logs the pending events while the program keeps busy.
const (
	farAway  = time.Hour
	logEvery = 50 * time.Millisecond
	// mirrorQuiet is how long the program must be quiet before the terminal
	// is shown what its filter holds back as the possible start of a secret:
	// the end of a prompt must not wait for the next output.
	mirrorQuiet = 100 * time.Millisecond
)

// readLoop is the headless loop. A goroutine of its own waits for output in a
// blocking read, hands it to the engine and writes the answer itself, so a prompt
// goes from the terminal to the engine and the answer back without waking another
// goroutine. The calling goroutine serves what is not output: the engine's
// deadlines, logging and cancellation. A lock keeps the two apart. The reader
// ends at the end of output, or once the run has ended and the driver is
// closed (see run).
func (s *session) readLoop(ctx context.Context, wr driver.WaitReader) {
	clock := s.o.clock
	var mu sync.Mutex
	// armed is when the loop below wakes next; the reader tells it through
	// sooner when the engine needs it before.
	var armed time.Time
	sooner := make(chan struct{}, 1)
	poke := func() {
		select {
		case sooner <- struct{}{}:
		default:
		}
	}
	s.reading = make(chan struct{})
	go func() {
		defer close(s.reading)
		buf := make([]byte, readSize)
		for {
			n, err := wr.ReadWait(buf)
			mu.Lock()
			if s.result != nil {
				mu.Unlock()
				return
			}
			if n > 0 {
				// Shown once answered: the answer does not wait for the
				// mirror, and its echo comes back after this output anyway.
				s.output(buf[:n], false)
			}
			if err != nil && s.result == nil {
				// The end of output: the program ended, or is being ended.
				mu.Unlock()
				st, _ := wr.Wait()
				mu.Lock()
				if s.result == nil {
					s.ended(st, ctx.Err() != nil)
				}
			}
			done := s.result != nil
			if next, ok := s.engine.Deadline(); done || ok && next.Before(armed) {
				poke()
			}
			mu.Unlock()
			if done {
				return
			}
		}
	}()

	cancelled := s.cancelled(ctx)
	calls := s.calls()
	timer := time.NewTimer(farAway)
	defer timer.Stop()
	for {
		mu.Lock()
		if s.result != nil {
			mu.Unlock()
			return
		}
		now := clock.Now()
		// A good time to log: the program is quiet, or has kept busy a while.
		s.quiet(now)
		next, ok := s.engine.Deadline()
		if ok && !now.Before(next) {
			s.tick(now)
			mu.Unlock()
			continue
		}
		if !ok || next.Sub(now) > logEvery {
			next = now.Add(logEvery)
		}
		armed = next
		mu.Unlock()
		timer.Reset(next.Sub(now))
		select {
		case <-timer.C:
		case <-sooner:
		case call := <-calls:
			mu.Lock()
			call()
			mu.Unlock()
		case <-cancelled:
			mu.Lock()
			s.interrupt()
			mu.Unlock()
		}
	}
}

// selectLoop serves a terminal (keystrokes, size changes) or a virtual clock: a
// goroutine reads the program, and the loop waits for whichever comes first.
func (s *session) selectLoop(ctx, parent context.Context) {
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
		if s.restore != nil {
			defer s.restore()
		}
		input = t.Input(ctx)
		resized = t.Resized(ctx)
	}
	cancelled := s.cancelled(parent)
	calls := s.calls()

	timer := clock.NewTimer(farAway)
	defer timer.Stop()
	var batch []byte
	for s.result == nil {
		// This loop serves a person or a replay, not a race: log at once.
		s.flush()
		next, ok := s.engine.Deadline()
		if s.redact.Holding() {
			if quiet := s.lastOutput.Add(mirrorQuiet); !ok || quiet.Before(next) {
				next, ok = quiet, true
			}
		}
		if ok {
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
			s.output(batch, true)
		case st := <-exited:
			s.ended(st, parent.Err() != nil)
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
			if rows, cols := s.o.terminal.Size(); rows > 0 && sizer == nil && (rows != s.rows || cols != s.cols) {
				s.rows, s.cols = rows, cols
				_ = s.drv.Resize(rows, cols)
				s.engine.Resize(int(rows), int(cols))
				if r := s.o.record; r != nil {
					_ = r.Resize(s.since(), int(cols), int(rows))
				}
			}
		case call := <-calls:
			call()
		case <-timer.C():
			now := clock.Now()
			s.quiet(now)
			s.tick(now)
		case <-cancelled:
			s.interrupt()
		}
	}
}

// What both loops do with what comes to them: the program's output and its
// end, cancellation, and the quiet in between. (The desk's calls are run as
// they come, and the engine's deadlines are served by tick.)

// output hands what the program wrote to the recording, the engine and the
// mirror, and marks the desk's screen as changed. With mirrorFirst the person
// sees the output before the engine answers it; without, the answer does not
// wait for the mirror.
func (s *session) output(out []byte, mirrorFirst bool) {
	s.recordOutput(out)
	now := s.o.clock.Now()
	if mirrorFirst {
		s.mirror(now, out)
	}
	s.apply(s.engine.Output(now, out))
	if !mirrorFirst {
		s.mirror(now, out)
	}
	s.screenDirty = s.desk != nil
}

// ended tells the engine that the program ended, once its output was read to
// the end; interrupted says that cancelling clai ended it, which is not its
// own end.
func (s *session) ended(st driver.ExitStatus, interrupted bool) {
	s.child = &st
	if interrupted {
		s.interrupt()
		return
	}
	s.apply(s.engine.Exit(s.o.clock.Now(), st))
}

// interrupt ends the run as interrupted, unless it has ended already.
func (s *session) interrupt() {
	if s.result == nil {
		s.apply(s.engine.Cancel(s.o.clock.Now(), "clai was interrupted"))
	}
}

// quiet does what waits for a quiet moment: it logs and records the pending
// events and shows what the mirror held back (see releaseMirror).
func (s *session) quiet(now time.Time) {
	s.flush()
	s.releaseMirror(now)
}

// cancelled is what ends the run when ctx ends: its Done channel; nil in a
// session a person drives, which ends with its program. There the driver,
// started with ctx, ends the program, whose last output is still read, shown
// and recorded before the run ends as interrupted.
func (s *session) cancelled(ctx context.Context) <-chan struct{} {
	if s.o.watch {
		return nil
	}
	return ctx.Done()
}

// calls is where the run's desk hands its calls to the loop; nil without a
// desk.
func (s *session) calls() <-chan func() {
	if s.desk == nil {
		return nil
	}
	return s.desk.calls
}

// mirror shows output on the terminal, through the filter that masks secrets.
func (s *session) mirror(now time.Time, out []byte) {
	s.lastOutput = now
	_, _ = s.redact.Write(out)
}

// releaseMirror shows what the mirror's filter holds back once the program
// has been quiet for mirrorQuiet: it could have begun a secret, but nothing
// came to complete it. (The recording's filter holds on: nobody waits for it.)
func (s *session) releaseMirror(now time.Time) {
	if s.redact.Holding() && now.Sub(s.lastOutput) >= mirrorQuiet {
		_ = s.redact.Flush()
	}
}

// chunk is a piece of output from the reader goroutine, in a pooled buffer.
type chunk struct {
	buf *[]byte
	n   int
	// rows and cols are the screen size the bytes are for, from a driver.Sizer.
	rows, cols uint16
}

func (c chunk) bytes() []byte { return (*c.buf)[:c.n] }
