package runner_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/clai-sh/clai/internal/terminaltest"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/report"
)

// manualClock is a Clock whose time moves only when the test advances it, so
// that a real program can be driven while clai's settle and timers wait.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

func newManualClock() *manualClock { return &manualClock{now: time.Unix(1_700_000_000, 0)} }

// Now returns the clock's time.
func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires once the clock reaches d from now.
func (c *manualClock) NewTimer(d time.Duration) runner.Timer {
	t := &manualTimer{clock: c, c: make(chan time.Time, 1)}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

// advance moves the clock by d and fires the timers due.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		t.fireIfDue()
	}
}

// manualTimer is a timer of a manualClock; like time.Timer since Go 1.23, a
// Reset or Stop drops a firing not yet received.
type manualTimer struct {
	clock *manualClock
	c     chan time.Time
	armed bool
	at    time.Time
}

func (t *manualTimer) C() <-chan time.Time { return t.c }

func (t *manualTimer) Reset(d time.Duration) {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	t.drain()
	t.armed, t.at = true, t.clock.now.Add(d)
	t.fireIfDue()
}

func (t *manualTimer) Stop() {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	t.drain()
	t.armed = false
}

func (t *manualTimer) drain() {
	select {
	case <-t.c:
	default:
	}
}

// fireIfDue fires the timer if its time has come; the clock's lock is held.
func (t *manualTimer) fireIfDue() {
	if t.armed && !t.clock.now.Before(t.at) {
		t.armed = false
		t.c <- t.clock.now
	}
}

// newPersonAtTerminal opens a terminal and returns the person at it and the
// terminal for the run.
func newPersonAtTerminal(t *testing.T) (*terminaltest.Person, *runner.Terminal) {
	t.Helper()
	person, tty := terminaltest.Open(t, 10, 60)
	return person, &runner.Terminal{In: tty, Out: tty}
}

// In a terminal, with screen matching, a real program asks a question that a
// rule answers, and the person answers it before clai's settle is over: clai
// does not answer it again, though it stays on screen with the answer after it.
// The same question asked again later is new, and the rule answers it. Time
// stands still but where the test moves it, so the person is always first.
func TestTerminalPersonAnswersOnScreen(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := playbook(t, `
version: 1
name: person
spawn: {command: [%q, -q, "Name: ", -q, "Other: ", -q, "Name: "]}
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: name, match: "Name:", line: "bob", limit: 5}
`, prompter)
	person, term := newPersonAtTerminal(t)
	clock := newManualClock()
	core, logs := observer.New(zap.DebugLevel)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	reports := make(chan *report.Report, 1)
	go func() {
		rep, err := runner.Run(ctx, pb, runner.WithStarter(quickKill), runner.WithTerminal(term),
			runner.WithClock(clock), runner.WithLogger(zap.New(core)))
		if err != nil {
			t.Errorf("run: %v", err)
		}
		reports <- rep
	}()

	person.WaitFor("Name: ", 1)
	person.Types("alice\r")
	person.WaitFor("Other: ", 1)
	// Past the settle: clai matches the screen, which still shows the first
	// question, and sees the second, which nothing answers.
	clock.advance(time.Second)
	person.WaitUntil("the prompt nobody answers, or clai's answer", func() bool {
		return logs.FilterMessage("prompt").Len() > 0 || strings.Contains(person.Seen(), "got: bob")
	})
	if strings.Contains(person.Seen(), "got: bob") {
		t.Fatalf("clai answered the question the person had answered:\n%q", person.Seen())
	}
	person.Types("carol\r")
	person.WaitFor("Name: ", 2)
	clock.advance(time.Second)
	person.WaitFor("got: bob", 1)
	rep := <-reports
	if rep == nil {
		t.FailNow()
	}
	wantOutcome(t, rep, engine.Done, 0)
	if got := person.Seen(); !strings.Contains(got, "got: alice") || !strings.Contains(got, "got: carol") {
		t.Fatalf("the program did not get the person's answers:\n%q", got)
	}
	if rep.Rules["name"] != 1 {
		t.Fatalf("rule name fired %d times, want 1", rep.Rules["name"])
	}
}
