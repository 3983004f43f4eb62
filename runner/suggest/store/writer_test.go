package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/fakeclock"
	"github.com/clai-sh/clai/runner/suggest/store"
)

func newFakeClock() *fakeclock.Clock { return fakeclock.New(t0) }

// batches is what a writer committed, batch by batch.
type batches chan int

func (b batches) committed(t *testing.T) func(int, error) {
	return func(n int, err error) {
		if err != nil {
			t.Errorf("commit of %d events: %v", n, err)
		}
		b <- n
	}
}

func (b batches) next(t *testing.T) int {
	t.Helper()
	select {
	case n := <-b:
		return n
	case <-t.Context().Done():
		t.Fatal("no batch committed")
		return 0
	}
}

func TestWriterCommitsAFullBatchAtOnce(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	clock, got := newFakeClock(), make(batches, 16)
	w := store.NewWriter(s, store.WriterOptions{Clock: clock, Committed: got.committed(t)})
	defer w.Close()
	for i := range 250 {
		if !w.Add(cmd("a", "r", "make test", time.Duration(i)*time.Millisecond)) {
			t.Fatal("an event was dropped")
		}
	}
	// The clock never moves: only the batch size commits.
	for range 2 {
		if n := got.next(t); n != store.DefaultBatchSize {
			t.Fatalf("a batch of %d events, want %d", n, store.DefaultBatchSize)
		}
	}
	c, err := s.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if c.Events < 2*store.DefaultBatchSize {
		t.Fatalf("%d events stored after two batches", c.Events)
	}
	w.Close()
	if n := got.next(t); n != 50 {
		t.Fatalf("Close committed %d events, want the 50 left", n)
	}
	if b := w.Batches(); b != 3 {
		t.Fatalf("%d batches, want 3", b)
	}
}

func TestWriterCommitsAfterTheBatchDelay(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	clock, got := newFakeClock(), make(batches, 16)
	w := store.NewWriter(s, store.WriterOptions{Clock: clock, Committed: got.committed(t)})
	defer w.Close()
	w.Add(cmd("a", "r", "git pull", 0))
	d := <-clock.Waits
	if d < 25*time.Millisecond || d > 50*time.Millisecond {
		t.Fatalf("batch delay %v, want 25–50ms", d)
	}
	clock.Advance(d - time.Millisecond)
	w.Add(cmd("a", "r", "make test", time.Second))
	// The second event joins the first one's batch, which is due at d.
	if err := w.Do(t.Context(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := got.next(t); n != 2 {
		t.Fatalf("the batch before a job held %d events, want 2", n)
	}
	w.Add(cmd("a", "r", "make lint", 2*time.Second))
	d = <-clock.Waits
	clock.Advance(d)
	if n := got.next(t); n != 1 {
		t.Fatalf("the batch after the delay held %d events, want 1", n)
	}
	ts, err := s.Transitions(t.Context(), "r", "make test", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Next != "make lint" {
		t.Fatalf("transitions from make test %+v, want make lint", ts)
	}
}

// busyWriter is a writer with room for one event, busy until block is
// closed.
func busyWriter(t *testing.T) (w *store.Writer, block chan struct{}) {
	t.Helper()
	w = store.NewWriter(newStore(t), store.WriterOptions{Queue: 1, Clock: newFakeClock(), BatchSize: 1000})
	block = make(chan struct{})
	started := make(chan struct{})
	go func() {
		_ = w.Do(context.Background(), func(context.Context) error { close(started); <-block; return nil })
	}()
	<-started
	return w, block
}

func TestWriterDropsWhenItsQueueIsFull(t *testing.T) {
	t.Parallel()
	w, block := busyWriter(t)
	// The writer is busy: one event waits, the rest are dropped.
	for i := range 10 {
		w.Add(cmd("a", "r", "ls", time.Duration(i)))
	}
	if got := w.Dropped(); got != 9 {
		t.Fatalf("dropped %d events, want 9", got)
	}
	close(block)
	w.Close()
}

func TestWriterAddWaitWaitsForRoom(t *testing.T) {
	t.Parallel()
	w, block := busyWriter(t)
	if !w.Add(cmd("a", "r", "ls", 0)) {
		t.Fatal("the first event found no room")
	}
	// The queue is full: a wait that ends first drops the event.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if w.AddWait(ctx, cmd("a", "r", "ls", 1)) || w.Dropped() != 1 {
		t.Fatalf("AddWait with its context ended: dropped %d", w.Dropped())
	}
	// One that waits gets the room the writer makes.
	queued := make(chan bool)
	go func() { queued <- w.AddWait(t.Context(), cmd("a", "r", "ls", 2)) }()
	close(block)
	if !<-queued || w.Dropped() != 1 {
		t.Fatalf("AddWait dropped an event the writer had room for: dropped %d", w.Dropped())
	}
	w.Close()
	if w.AddWait(t.Context(), cmd("a", "r", "ls", 3)) {
		t.Fatal("AddWait queued an event after Close")
	}
}

func TestWriterLearnsABatchInTheOrderOfItsEventsTimes(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	got := make(batches, 4)
	w := store.NewWriter(s, store.WriterOptions{Clock: newFakeClock(), Committed: got.committed(t)})
	// make test ran after git pull, but its event came first.
	w.Add(cmd("a", "r", "make test", 2*time.Second))
	w.Add(cmd("a", "r", "git pull", time.Second))
	w.Close()
	if n := got.next(t); n != 2 {
		t.Fatalf("a batch of %d", n)
	}
	ts, err := s.Transitions(t.Context(), "r", "git pull", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Next != "make test" {
		t.Fatalf("transitions from git pull %+v, want make test", ts)
	}
}
