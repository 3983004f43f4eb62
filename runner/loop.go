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

// farAway is the timer of the loop when the engine needs no tick; logEvery is
// how soon the loop logs the pending events while the program keeps busy, with
// a direct reader (see outputs).
const (
	farAway  = time.Hour
	logEvery = 50 * time.Millisecond
	// mirrorQuiet is how long the program must be quiet before the terminal
	// is shown what its filter holds back as the possible start of a secret:
	// the end of a prompt must not wait for the next output.
	mirrorQuiet = 100 * time.Millisecond
)

// loop is the session's one loop. It serves what every run waits for: the
// engine's deadlines, the desk's calls, cancellation and, with a terminal, the
// person's keys and size changes, until the run has its result. How the
// program's output comes to the engine is the run's input strategy (see
// outputs): headless, a reader that hands it to the engine itself; with a
// terminal or a virtual clock, a reader whose output the loop takes as it
// comes. Either way the session is touched only under the strategy's lock.
func (s *session) loop(ctx, parent context.Context) {
	clock := s.o.clock
	in := s.takeOutput(parent)
	defer in.stop()
	var keys <-chan []byte
	var resized <-chan struct{}
	if t := s.o.terminal; t != nil {
		if s.restore != nil {
			defer s.restore()
		}
		keys = t.Input(ctx)
		resized = t.Resized(ctx)
	}
	cancelled := s.cancelled(parent)
	calls := s.calls()
	timer := clock.NewTimer(farAway)
	defer timer.Stop()
	for {
		in.mu.Lock()
		if s.result != nil {
			in.mu.Unlock()
			return
		}
		now := clock.Now()
		// A good time to log: the program is quiet, or has kept busy a while.
		s.quiet(now)
		next, ok := s.eng().Deadline()
		if ok && !now.Before(next) {
			s.tick(now)
			in.mu.Unlock()
			continue
		}
		if s.redact.Holding() {
			if quiet := s.lastOutput.Add(mirrorQuiet); !ok || quiet.Before(next) {
				next, ok = quiet, true
			}
		}
		if in.direct && (!ok || next.Sub(now) > logEvery) {
			next, ok = now.Add(logEvery), true
		}
		if !ok {
			next = now.Add(farAway)
		}
		in.armed = next
		in.mu.Unlock()
		timer.Reset(max(next.Sub(now), 0))
		select {
		case c, open := <-in.chunks:
			in.mu.Lock()
			if open {
				in.take(s, c)
			} else {
				in.drained(s)
			}
			in.mu.Unlock()
		case st := <-in.exited:
			in.mu.Lock()
			s.ended(st, parent.Err() != nil)
			in.mu.Unlock()
		case <-in.sooner:
		case k, open := <-keys:
			if !open {
				keys = nil
				continue
			}
			in.mu.Lock()
			s.userInput(clock.Now(), k)
			in.mu.Unlock()
		case _, open := <-resized:
			if !open {
				resized = nil
				continue
			}
			in.mu.Lock()
			s.resized(in.sizer != nil)
			in.mu.Unlock()
		case call := <-calls:
			in.mu.Lock()
			call()
			in.mu.Unlock()
		case <-timer.C():
		case <-cancelled:
			in.mu.Lock()
			s.interrupt()
			in.mu.Unlock()
		}
	}
}

// outputs is how the program's output comes to the loop: the run's input
// strategy, one of two.
//
// Direct, headless on the wall clock with a driver that can wait in the
// kernel (driver.WaitReader): a goroutine of its own waits in a blocking read,
// hands the output to the engine and writes the answer itself, under mu, so a
// prompt goes from the terminal to the engine and the answer back without
// waking another goroutine. At the end of output it waits for the program and
// tells the engine. It pokes sooner when the engine needs the loop before the
// time armed; the loop logs at least every logEvery while the program keeps
// busy. The reader ends at the end of output, or once the run has ended and
// the driver is closed (see run).
//
// Through chunks otherwise (a terminal, a virtual clock, a driver that cannot
// wait so): a goroutine reads into pooled buffers and the loop takes the
// output as it comes, what has arrived together in one batch, then waits for
// the program's end through exited once the output is over.
type outputs struct {
	// mu keeps the loop and a direct reader apart.
	mu     sync.Mutex
	direct bool
	// armed is when the loop wakes next; sooner is where a direct reader
	// tells it to wake before.
	armed  time.Time
	sooner chan struct{}
	// chunks brings the reading goroutine's output (nil once it is over, and
	// for a direct reader); exited then brings the program's end.
	chunks chan chunk
	exited chan driver.ExitStatus
	pool   *sync.Pool
	// sizer is the driver when it sizes its own screen (a tmux pane): it says
	// the size of each read; rows and cols are the size the engine has.
	sizer      driver.Sizer
	rows, cols uint16
	batch      []byte
	// stop ends the reading goroutine of chunks when the loop ends.
	stop func()
}

// takeOutput starts taking the program's output the way the run takes it.
func (s *session) takeOutput(parent context.Context) *outputs {
	in := &outputs{stop: func() {}}
	wr, waits := s.drv.(driver.WaitReader)
	_, realClock := s.o.clock.(systemClock)
	if waits && realClock && s.o.terminal == nil {
		in.direct = true
		in.sooner = make(chan struct{}, 1)
		s.reading = make(chan struct{})
		go s.readDirect(parent, wr, in)
		return in
	}
	in.pool = &sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}
	in.chunks = make(chan chunk, 16)
	in.exited = make(chan driver.ExitStatus, 1)
	in.sizer, _ = s.drv.(driver.Sizer)
	chunks := in.chunks
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(chunks)
		for {
			buf := in.pool.Get().(*[]byte)
			n, err := s.drv.Read(*buf)
			if n > 0 {
				c := chunk{buf: buf, n: n}
				if in.sizer != nil {
					c.rows, c.cols = in.sizer.Size()
				}
				chunks <- c
			} else {
				in.pool.Put(buf)
			}
			if err != nil {
				return
			}
		}
	}()
	in.stop = func() {
		_ = s.drv.Close()
		for range chunks {
			// Unblock the reader; it stops at the end of output.
		}
		wg.Wait()
	}
	return in
}

// readDirect is the direct reader (see outputs).
func (s *session) readDirect(ctx context.Context, wr driver.WaitReader, in *outputs) {
	defer close(s.reading)
	buf := make([]byte, readSize)
	for {
		n, err := wr.ReadWait(buf)
		in.mu.Lock()
		if s.result != nil {
			in.mu.Unlock()
			return
		}
		if n > 0 {
			// Shown once answered: the answer does not wait for the
			// mirror, and its echo comes back after this output anyway.
			s.output(buf[:n], false)
		}
		if err != nil && s.result == nil {
			// The end of output: the program ended, or is being ended.
			in.mu.Unlock()
			st, _ := wr.Wait()
			in.mu.Lock()
			if s.result == nil {
				s.ended(st, ctx.Err() != nil)
			}
		}
		done := s.result != nil
		if next, ok := s.eng().Deadline(); done || ok && next.Before(in.armed) {
			select {
			case in.sooner <- struct{}{}:
			default:
			}
		}
		in.mu.Unlock()
		if done {
			return
		}
	}
}

// take hands the engine c and what else has arrived: under a flood the engine
// matches once per batch, not once per read. (A driver.Sizer's reads are whole
// screens, each of its own size: they are matched one by one.) The person
// sees the output before the engine answers it.
func (in *outputs) take(s *session, c chunk) {
	if in.sizer != nil && (c.rows != in.rows || c.cols != in.cols) {
		in.rows, in.cols = c.rows, c.cols
		s.eng().Resize(int(in.rows), int(in.cols))
	}
	in.batch = append(in.batch[:0], c.bytes()...)
	in.pool.Put(c.buf)
	for in.sizer == nil && len(in.batch) < maxBatch {
		select {
		case c, open := <-in.chunks:
			if !open {
				in.output(s)
				in.drained(s)
				return
			}
			in.batch = append(in.batch, c.bytes()...)
			in.pool.Put(c.buf)
		default:
			in.output(s)
			return
		}
	}
	in.output(s)
}

// output hands the batch to the session.
func (in *outputs) output(s *session) { s.output(in.batch, true) }

// drained notes that the output is over: the program's end comes next,
// through exited, once it has been waited for.
func (in *outputs) drained(s *session) {
	in.chunks = nil
	go func() {
		st, _ := s.drv.Wait()
		in.exited <- st
	}()
}

// resized follows the person's terminal to its new size: the program's
// terminal, the engine and the recording, unless the driver sizes its own
// screen.
func (s *session) resized(ownSize bool) {
	rows, cols := s.o.terminal.Size()
	if rows == 0 || ownSize || (rows == s.rows && cols == s.cols) {
		return
	}
	s.rows, s.cols = rows, cols
	_ = s.drv.Resize(rows, cols)
	s.eng().Resize(int(rows), int(cols))
	if r := s.o.record; r != nil {
		_ = r.Resize(s.since(), int(cols), int(rows))
	}
}

// What the loop does with what comes to it: the program's output and its
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
	s.apply(s.eng().Output(now, out))
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
	s.apply(s.eng().Exit(s.o.clock.Now(), st))
}

// interrupt ends the run as interrupted, unless it has ended already.
func (s *session) interrupt() {
	if s.result == nil {
		s.apply(s.eng().Cancel(s.o.clock.Now(), "clai was interrupted"))
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
