package runner

import (
	"io"
	"slices"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/report"
)

// echoTerminal is a program's terminal whose echo a test sets, and which
// notes, in order, when the session looked at the echo and what it typed.
type echoTerminal struct {
	on  bool
	log []string
}

func (d *echoTerminal) Echo() (bool, error) {
	d.log = append(d.log, "echo?")
	return d.on, nil
}
func (d *echoTerminal) Write(p []byte) (int, error) {
	d.log = append(d.log, "type "+string(p))
	return len(p), nil
}
func (d *echoTerminal) Read([]byte) (int, error)         { return 0, io.EOF }
func (d *echoTerminal) Resize(uint16, uint16) error      { return nil }
func (d *echoTerminal) Wait() (driver.ExitStatus, error) { return driver.ExitStatus{}, nil }
func (d *echoTerminal) Close() error                     { return nil }

// echoSession is a session on an echoTerminal, its engine started at t0.
func echoSession(t *testing.T, term *echoTerminal, t0 time.Time) *session {
	t.Helper()
	pb, findings := playbooks.Parse("echo.yaml", []byte(`
version: 1
name: echo
spawn: {command: [x]}
settings: {settle: 300ms, min_send_interval: 0s}
steps:
  - expect: "Password: "
    line: hunter2
  - expect: eof
`))
	if pb == nil {
		t.Fatal(findings)
	}
	r := redact.New(io.Discard, nil)
	rec := report.NewBuilder(pb, report.Config{})
	rec.SetStart(t0)
	s := newSession(options{logger: zap.NewNop(), clock: systemClock{}}, pb, rec, r)
	s.drv, s.engine = term, engine.NewEngine(pb, engine.Config{})
	s.apply(s.eng().Start(t0))
	return s
}

// The session looks at the terminal's echo as it types an answer the engine
// awaits a reaction to, before typing it, and the engine hears what it found
// as an observation of its own before its next call, never while the
// session carries out its actions: there, echo off, the answer is not sent
// again. An engine ticked behind the session's back has not heard of it,
// and sends the answer again.
func TestEchoReachesTheEngineBeforeItsNextCall(t *testing.T) {
	t.Parallel()
	for _, bypass := range []bool{false, true} {
		term := &echoTerminal{}
		t0 := time.Unix(1_700_000_000, 0)
		s := echoSession(t, term, t0)
		now := t0.Add(time.Millisecond)
		s.apply(s.eng().Output(now, []byte("Password: ")))
		if want := []string{"echo?", "type hunter2\r"}; !slices.Equal(term.log, want) {
			t.Fatalf("the terminal saw %q, want %q", term.log, want)
		}
		later := now.Add(3 * time.Second)
		if bypass {
			s.apply(s.engine.Tick(later))
		} else {
			s.tick(later)
		}
		typed := 0
		for _, l := range term.log {
			if l == "type hunter2\r" {
				typed++
			}
		}
		if want := map[bool]int{false: 1, true: 2}[bypass]; typed != want {
			t.Fatalf("ticked behind the session's back %v: typed %d times, want %d: %q", bypass, typed, want, term.log)
		}
	}
}

// Echo on as the answer is typed, then off before a tick: the session looks
// again before the tick while the engine may wait for a reaction, and the
// answer is not sent again. With echo on throughout, it is, once.
func TestEchoIsLookedAtAgainBeforeATick(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{true, false} {
		term := &echoTerminal{on: true}
		t0 := time.Unix(1_700_000_000, 0)
		s := echoSession(t, term, t0)
		now := t0.Add(time.Millisecond)
		s.apply(s.eng().Output(now, []byte("Password: ")))
		term.on = !off
		s.tick(now.Add(3 * time.Second))
		typed := 0
		for _, l := range term.log {
			if l == "type hunter2\r" {
				typed++
			}
		}
		if want := map[bool]int{true: 1, false: 2}[off]; typed != want {
			t.Fatalf("echo off before the tick %v: typed %d times, want %d: %q", off, typed, want, term.log)
		}
	}
}
