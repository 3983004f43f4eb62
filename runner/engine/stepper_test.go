package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/exitcode"
)

// script is a machine with a list of timers: it is due at the earliest, and a
// Tick fires only that one, if it is due; it logs each call with its time, as
// an offset from the start.
type script struct {
	t      *testing.T
	start  time.Time
	timers []time.Time
	// stuck is a deadline a Tick never clears, and acts is how many Ticks at
	// it still act.
	stuck  time.Time
	acts   int
	ticks  int
	log    []string
	result *Result
}

// maxTicks bounds the Ticks a script takes: a stepper that never stops ticking
// fails its test instead of hanging it.
const maxTicks = 100

func (m *script) note(call string, now time.Time) {
	m.log = append(m.log, fmt.Sprintf("%s@%s", call, now.Sub(m.start)))
}

func (m *script) observe(call string, now time.Time) []Action {
	m.note(call, now)
	return nil
}

func (m *script) Start(now time.Time) []Action              { return m.observe("start", now) }
func (m *script) Output(now time.Time, _ []byte) []Action   { return m.observe("output", now) }
func (m *script) Input(now time.Time, _ int) []Action       { return m.observe("input", now) }
func (m *script) Interrupt(now time.Time) []Action          { return m.observe("interrupt", now) }
func (m *script) Exit(now time.Time, _ ExitStatus) []Action { return m.observe("exit", now) }
func (m *script) Result() *Result                           { return m.result }
func (m *script) Cancel(now time.Time, reason string) []Action {
	m.note("cancel", now)
	m.result = &Result{State: Aborted, ExitCode: exitcode.Interrupted, Reason: reason}
	return []Action{Finish{Result: *m.result}}
}

func (m *script) Deadline() (time.Time, bool) {
	due := m.timers
	if !m.stuck.IsZero() {
		due = append(slices.Clip(due), m.stuck)
	}
	if len(due) == 0 {
		return time.Time{}, false
	}
	return slices.MinFunc(due, time.Time.Compare), true
}

func (m *script) Tick(now time.Time) []Action {
	m.note("tick", now)
	if m.ticks++; m.ticks > maxTicks {
		m.t.Fatalf("%d Ticks: the stepper does not stop; the first: %s", m.ticks, strings.Join(m.log[:8], " "))
	}
	next, ok := m.Deadline()
	switch {
	case !ok || next.After(now):
		return nil
	case next.Equal(m.stuck):
		if m.acts == 0 {
			return nil
		}
		m.acts--
		return []Action{&Event{Name: EventNudge}}
	}
	m.timers = slices.DeleteFunc(m.timers, next.Equal)
	return []Action{&Event{Name: EventTimeout}}
}

func newScript(t *testing.T, after ...time.Duration) (*script, *Stepper, *[]Action) {
	start := time.Unix(1_700_000_000, 0)
	m := &script{t: t, start: start}
	for _, d := range after {
		m.timers = append(m.timers, start.Add(d))
	}
	var taken []Action
	return m, newStepper(m, start, func(a []Action) { taken = append(taken, a...) }), &taken
}

func wantLog(t *testing.T, m *script, want ...string) {
	t.Helper()
	if got := strings.Join(m.log, " "); got != strings.Join(want, " ") {
		t.Fatalf("calls\n  %s\nwant\n  %s", got, strings.Join(want, " "))
	}
}

// Before an observation at t, each deadline due by t is ticked at its own
// time, earliest first; one due after t waits for time to reach it.
func TestStepperTicksEachDeadlineInOrderBeforeAnObservation(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	m, st, taken := newScript(t, 3*ms, ms, 5*ms, 2*ms, 9*ms)
	st.Start()
	st.Output(t.Context(), m.start.Add(5*ms), nil)
	wantLog(t, m, "start@0s", "tick@1ms", "tick@2ms", "tick@3ms", "tick@5ms", "output@5ms")
	st.Input(t.Context(), m.start.Add(6*ms), 1)
	st.Advance(t.Context(), 2*ms)
	wantLog(t, m, "start@0s", "tick@1ms", "tick@2ms", "tick@3ms", "tick@5ms", "output@5ms", "input@6ms")
	if got := st.Now().Sub(m.start); got != 8*ms {
		t.Fatalf("now +%s, want +8ms", got)
	}
	st.Exit(t.Context(), m.start.Add(10*ms), ExitStatus{})
	wantLog(t, m, "start@0s", "tick@1ms", "tick@2ms", "tick@3ms", "tick@5ms", "output@5ms", "input@6ms", "tick@9ms", "exit@10ms")
	if len(*taken) != 5 {
		t.Fatalf("took %d actions, want the 5 timeouts", len(*taken))
	}
}

// Time never goes back: an observation stamped before the stepper's time is
// made at its time.
func TestStepperTimeNeverGoesBack(t *testing.T) {
	t.Parallel()
	m, st, _ := newScript(t)
	st.Advance(t.Context(), time.Second)
	st.Output(t.Context(), m.start.Add(time.Millisecond), nil)
	st.Interrupt(t.Context(), m.start)
	wantLog(t, m, "output@1s", "interrupt@1s")
}

// A Tick that does nothing and leaves the machine due again is not repeated
// until time moves on; Stalled says where it happened.
func TestStepperStopsAtATickThatMakesNoProgress(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	m, st, _ := newScript(t, 4*ms)
	m.stuck = m.start.Add(2 * ms)
	st.Advance(t.Context(), 3*ms)
	wantLog(t, m, "tick@2ms")
	if at, ok := st.Stalled(); !ok || !at.Equal(m.stuck) {
		t.Fatalf("stalled %v, %v; want at +2ms", at, ok)
	}
	if got := st.Now().Sub(m.start); got != 3*ms {
		t.Fatalf("now +%s, want +3ms", got)
	}
	// Each step after it ticks once at the stuck deadline.
	st.Advance(t.Context(), 2*ms)
	wantLog(t, m, "tick@2ms", "tick@3ms")
}

// A Tick that acts is progress even when the machine stays due: it is ticked
// again at once, as a nudge with no gap is sent until the last.
func TestStepperTicksAgainAfterATickThatActs(t *testing.T) {
	t.Parallel()
	m, st, taken := newScript(t)
	m.stuck, m.acts = m.start.Add(time.Millisecond), 3
	st.Advance(t.Context(), time.Second)
	wantLog(t, m, "tick@1ms", "tick@1ms", "tick@1ms", "tick@1ms")
	if len(*taken) != 3 {
		t.Fatalf("took %d actions, want 3", len(*taken))
	}
	if _, ok := st.Stalled(); !ok {
		t.Fatal("the fourth Tick did nothing, and no stall is reported")
	}
}

// When the context ends, the run ends as interrupted at the stepper's time,
// before any further Tick, and time does not move.
func TestStepperCancelledEndsTheRun(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	m, st, taken := newScript(t, ms, 3*ms)
	st.Advance(t.Context(), 2*ms)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	st.Advance(ctx, 5*ms)
	wantLog(t, m, "tick@1ms", "cancel@2ms")
	if got := st.Now().Sub(m.start); got != 2*ms {
		t.Fatalf("now +%s, want +2ms", got)
	}
	if last := (*taken)[len(*taken)-1]; !isFinish(last, exitcode.Interrupted) {
		t.Fatalf("last action %#v, want the interrupted end", last)
	}
	// The run is over: no more Ticks, and no second end.
	st.Advance(ctx, 5*ms)
	wantLog(t, m, "tick@1ms", "cancel@2ms")
}

func isFinish(a Action, code int) bool {
	f, ok := a.(Finish)
	return ok && f.Result.ExitCode == code
}

// With the engine: a step's timeout that falls due before the output it waits
// for arrives ends the run, though the output would have matched the step.
func TestStepperTimeoutBeforeLateOutput(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("test.yaml", []byte(`version: 1
name: t
spawn: {command: [x]}
settings: {min_send_interval: 0s}
steps:
  - {expect: "Name:", line: "demo", timeout: 1s}
`))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	for _, c := range []struct {
		after time.Duration
		want  State
	}{{500 * time.Millisecond, Done}, {1500 * time.Millisecond, TimedOut}} {
		e := NewEngine(pb, Config{})
		start := time.Unix(1_700_000_000, 0)
		var timeouts []time.Duration
		st := NewStepper(e, start, func(actions []Action) {
			for _, a := range actions {
				if ev, ok := a.(*Event); ok && ev.Name == EventTimeout {
					timeouts = append(timeouts, ev.At)
				}
			}
		})
		st.Start()
		st.Output(t.Context(), start.Add(c.after), []byte("Name: "))
		st.Exit(t.Context(), start.Add(2*time.Second), ExitStatus{})
		if r := e.Result(); r == nil || r.State != c.want {
			t.Fatalf("output at +%s: result %+v, want %s", c.after, r, c.want)
		}
		if c.want == TimedOut && !slices.Equal(timeouts, []time.Duration{time.Second}) {
			t.Fatalf("output at +%s: timeouts at %v, want one at 1s", c.after, timeouts)
		}
	}
}
