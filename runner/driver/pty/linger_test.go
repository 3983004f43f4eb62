package pty

import (
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeNow is a clock that moves only when told to. It is safe for concurrent
// use: a Process's linger watch reads it while a test moves it.
type fakeNow struct{ ns atomic.Int64 }

func newFakeNow(t time.Time) *fakeNow {
	f := &fakeNow{}
	f.ns.Store(t.UnixNano())
	return f
}

func (f *fakeNow) now() time.Time          { return time.Unix(0, f.ns.Load()) }
func (f *fakeNow) advance(d time.Duration) { f.ns.Add(int64(d)) }

func TestLingerClock(t *testing.T) {
	t.Parallel()
	clock := newFakeNow(time.Unix(1000, 0))
	c := &lingerClock{period: 250 * time.Millisecond, now: clock.now}
	left := func(wantLeft time.Duration, wantRunning bool) {
		t.Helper()
		if got, running := c.left(); got != wantLeft || running != wantRunning {
			t.Fatalf("left() = %v, %v; want %v, %v", got, running, wantLeft, wantRunning)
		}
	}

	c.output() // output while the program runs starts nothing
	clock.advance(time.Hour)
	left(0, false)

	c.exited()
	left(250*time.Millisecond, true)
	clock.advance(100 * time.Millisecond)
	left(150*time.Millisecond, true)

	c.exited() // the exit is noted once; a second note moves nothing
	left(150*time.Millisecond, true)

	c.output() // output read after the exit starts the quiet again
	left(250*time.Millisecond, true)
	clock.advance(250 * time.Millisecond)
	left(0, true)
	clock.advance(time.Second)
	left(-time.Second, true)
}

func TestLingerClockWithoutPeriod(t *testing.T) {
	t.Parallel()
	for _, period := range []time.Duration{0, -1} {
		clock := newFakeNow(time.Unix(1000, 0))
		c := &lingerClock{period: period, now: clock.now}
		c.exited()
		clock.advance(time.Hour)
		if got, running := c.left(); running {
			t.Errorf("period %v: left() = %v, running; want not running", period, got)
		}
	}
}

// lingerPeriod is the linger of the tests that move its clock by hand: an hour,
// so that the linger watch's own timer never fires during a test, which calls
// lingerDue where the watch would.
const lingerPeriod = time.Hour

// startLingering starts argv with the linger clock at the test's command,
// waits until the program ended, and moves the clock well past the linger
// period: whoever reads now comes late. With hold, the test keeps the
// terminal open as a descendant of the program would.
func startLingering(t *testing.T, hold bool, argv ...string) (*Process, *fakeNow) {
	t.Helper()
	clock := newFakeNow(time.Unix(1000, 0))
	p, err := Start(t.Context(), Options{Argv: argv, Linger: lingerPeriod, now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if hold {
		holder, err := unix.Open(p.name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatalf("hold the terminal: %v", err)
		}
		t.Cleanup(func() { _ = unix.Close(holder) })
	}
	within(t, p.Done(), "the program did not end")
	clock.advance(3 * lingerPeriod)
	return p, clock
}

// readWait is one ReadWait that must end within waitLimit.
func readWait(t *testing.T, p *Process) (string, error) {
	t.Helper()
	type result struct {
		out string
		err error
	}
	got := make(chan result, 1)
	go func() {
		buf := make([]byte, 1024)
		n, err := p.ReadWait(buf)
		got <- result{string(buf[:n]), err}
	}()
	r := within(t, got, "ReadWait still waits")
	return r.out, r.err
}

// What the program wrote before it exited is read however late ReadWait comes
// to it, past the linger too, and only then is the output over.
func TestReadWaitTakesOutputLeftPastLinger(t *testing.T) {
	t.Parallel()
	p, _ := startLingering(t, false, "sh", "-c", "printf bold; exit 7")
	if st, _ := p.Wait(); st.Code != 7 {
		t.Errorf("exit status = %v, want exit 7", st)
	}
	p.lingerDue() // the linger watch, late as well
	var out []byte
	for {
		chunk, err := readWait(t, p)
		out = append(out, chunk...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("ReadWait: %v", err)
		}
	}
	if string(out) != "bold" {
		t.Errorf("ReadWait read %q before io.EOF, want %q", out, "bold")
	}
}

// While a descendant keeps the terminal open, output left past the linger is
// still read, and the output is over once the terminal has been quiet for the
// linger period after it: ReadWait, which finds nothing to read, asks the
// linger clock itself (the watch, come when nobody read, woke nobody).
func TestReadWaitEndsPastLingerWhileTerminalHeld(t *testing.T) {
	t.Parallel()
	p, clock := startLingering(t, true, "sh", "-c", "printf bold")
	p.lingerDue()
	if out, err := readWait(t, p); out != "bold" || err != nil {
		t.Fatalf("ReadWait = %q, %v; want %q, nil", out, err, "bold")
	}
	clock.advance(3 * lingerPeriod)
	if out, err := readWait(t, p); out != "" || !errors.Is(err, io.EOF) {
		t.Errorf("ReadWait once quiet past the linger = %q, %v; want io.EOF", out, err)
	}
}

// A ReadWait that is waiting but has not yet read what the program left (its
// goroutine is slow to run) is not ended by the linger watch: the output is
// there to read, so the terminal was not quiet.
func TestLingerWatchLeavesOutputToWaitingReader(t *testing.T) {
	t.Parallel()
	p, _ := startLingering(t, true, "sh", "-c", "printf bold")
	p.waiting.Store(true)
	p.lingerDue()
	p.waiting.Store(false)
	if out, err := readWait(t, p); out != "bold" || err != nil {
		t.Errorf("ReadWait = %q, %v; want %q, nil", out, err, "bold")
	}
}
