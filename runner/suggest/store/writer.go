package store

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Batching defaults of a Writer: a batch is committed when it holds
// DefaultBatchSize events, or DefaultBatchDelay after its first came,
// whichever is first.
const (
	DefaultBatchSize  = 100
	DefaultBatchDelay = 40 * time.Millisecond
	// DefaultQueue is how many events may wait for the writer; past it
	// events are dropped and counted.
	DefaultQueue = 8192
)

// Clock is the writer's time: the real one, or a test's.
type Clock interface {
	Now() time.Time
	// After is a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// After is time.After.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// WriterOptions tune a Writer; zero values are the defaults.
type WriterOptions struct {
	BatchSize  int
	BatchDelay time.Duration
	Queue      int
	Clock      Clock
	// Committed, if set, is told of each batch the writer committed (or
	// failed to), from the writer's goroutine.
	Committed func(events int, err error)
}

// Writer is the store's one writer: a goroutine that takes events and
// commits them in batches, and runs the other writes (tasks, purges) between
// batches.
type Writer struct {
	s    *Store
	opt  WriterOptions
	in   chan Event
	jobs chan job
	done chan struct{}

	closeOnce sync.Once
	stop      chan struct{}

	dropped, failed, batches atomic.Int64
}

// job is a write other than events, run by the writer's goroutine.
type job struct {
	f    func(context.Context) error
	errc chan error
}

// NewWriter starts the writer of s. Close stops it.
func NewWriter(s *Store, opt WriterOptions) *Writer {
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.BatchDelay <= 0 {
		opt.BatchDelay = DefaultBatchDelay
	}
	if opt.Queue <= 0 {
		opt.Queue = DefaultQueue
	}
	if opt.Clock == nil {
		opt.Clock = SystemClock{}
	}
	w := &Writer{s: s, opt: opt, in: make(chan Event, opt.Queue), jobs: make(chan job), done: make(chan struct{}), stop: make(chan struct{})}
	go w.loop()
	return w
}

// Add queues e for the next batch. When the queue is full, e is dropped,
// counted, and Add returns false.
func (w *Writer) Add(e Event) bool { return w.add(context.Background(), e, false) }

// AddWait queues e for the next batch, waiting for room in the queue until
// ctx ends; it returns false, counting e as dropped, when ctx ended or the
// writer was closed first.
func (w *Writer) AddWait(ctx context.Context, e Event) bool { return w.add(ctx, e, true) }

// add queues e, waiting for room until ctx ends when wait is set.
func (w *Writer) add(ctx context.Context, e Event, wait bool) bool {
	select {
	case <-w.stop:
		w.dropped.Add(1)
		return false
	default:
	}
	select {
	case w.in <- e:
		return true
	default:
	}
	if wait {
		select {
		case w.in <- e:
			return true
		case <-w.stop:
		case <-ctx.Done():
		}
	}
	w.dropped.Add(1)
	return false
}

// Do runs f in the writer's goroutine, after the events queued before it
// are committed, and returns its error.
func (w *Writer) Do(ctx context.Context, f func(context.Context) error) error {
	j := job{f: f, errc: make(chan error, 1)}
	select {
	case w.jobs <- j:
	case <-w.done:
		return errWriterClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-j.errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Dropped counts the events dropped because the queue was full.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Failed counts the events of batches that failed to commit.
func (w *Writer) Failed() int64 { return w.failed.Load() }

// Batches counts the transactions of events committed.
func (w *Writer) Batches() int64 { return w.batches.Load() }

// Close commits what is queued and stops the writer.
func (w *Writer) Close() {
	w.closeOnce.Do(func() { close(w.stop) })
	<-w.done
}

func (w *Writer) loop() {
	defer close(w.done)
	var batch []Event
	var due <-chan time.Time
	flush := func() {
		if len(batch) > 0 {
			w.commit(batch)
		}
		batch, due = batch[:0], nil
	}
	for {
		select {
		case e := <-w.in:
			batch = append(batch, e)
			if len(batch) == 1 {
				due = w.opt.Clock.After(w.opt.BatchDelay)
			}
			if len(batch) >= w.opt.BatchSize {
				flush()
			}
		case <-due:
			flush()
		case j := <-w.jobs:
			w.drain(&batch)
			flush()
			j.errc <- j.f(context.Background())
		case <-w.stop:
			w.drain(&batch)
			flush()
			return
		}
	}
}

// drain moves the queued events into batch, committing each full one.
func (w *Writer) drain(batch *[]Event) {
	for {
		select {
		case e := <-w.in:
			*batch = append(*batch, e)
			if len(*batch) >= w.opt.BatchSize {
				w.commit(*batch)
				*batch = (*batch)[:0]
			}
		default:
			return
		}
	}
}

// commit writes one batch in one transaction, its events in the order of
// their times: the hooks send in the background, and a command's event may
// overtake the one before it.
func (w *Writer) commit(batch []Event) {
	slices.SortStableFunc(batch, func(a, b Event) int { return a.At.Compare(b.At) })
	err := w.s.Apply(context.Background(), batch)
	if err != nil {
		w.failed.Add(int64(len(batch)))
	} else {
		w.batches.Add(1)
	}
	if w.opt.Committed != nil {
		w.opt.Committed(len(batch), err)
	}
}
