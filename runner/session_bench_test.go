package runner_test

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/eventlog"
)

// BenchmarkSessionRoundTrip measures clai's own work in one W2 round trip, with
// the program replaced by an in-memory one that answers at once: the prompt, the
// engine, the answer, the echo, the log line and the report's timeline, without
// a terminal or a process. What it costs here is what clai adds to the floor.
func BenchmarkSessionRoundTrip(b *testing.B) {
	src := "version: 1\nname: w2\nspawn: {command: [x]}\nsettings: {min_send_interval: 0s}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n"
	pb, findings := playbooks.Parse("w2.yaml", []byte(src))
	if pb == nil {
		b.Fatal(findings)
	}
	logger, stop := eventlog.New(zapcore.AddSync(io.Discard), zap.InfoLevel, "w2")
	defer stop()
	b.ReportAllocs()
	b.ResetTimer()
	// A rule fires at most a million times a run: longer benchmarks take
	// several runs.
	const perRun = 1_000_000
	for done := 0; done < b.N; done += perRun {
		prog := &answering{rounds: min(b.N-done, perRun)}
		rep, err := runner.Run(context.Background(), pb, runner.WithLogger(logger),
			runner.WithStarter(func(context.Context, runner.Spawn) (driver.Driver, error) { return prog, nil }))
		if err != nil {
			b.Fatal(err)
		}
		if rep.ExitCode != 0 {
			b.Fatalf("run ended %s: %s", rep.Outcome, rep.Reason)
		}
		if prog.round != prog.rounds {
			b.Fatalf("%d round trips, want %d", prog.round, prog.rounds)
		}
	}
}

// answering is the roundtrip program in memory: it asks for a code, and the
// echo of the answer comes back with the next question.
type answering struct {
	rounds, round int
	out           []byte
	asked         bool
}

func (a *answering) ReadWait(p []byte) (int, error) {
	if !a.asked {
		a.asked = true
		a.out = a.prompt(a.out[:0])
	}
	if len(a.out) == 0 {
		return 0, io.EOF
	}
	n := copy(p, a.out)
	a.out = a.out[n:]
	return n, nil
}

func (a *answering) prompt(b []byte) []byte {
	i := a.round + 1
	b = append(b, "Enter code "...)
	b = strconv.AppendInt(b, int64(1000+(i*7919)%9000), 10)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, "]: "...)
}

func (a *answering) Read(p []byte) (int, error) { return a.ReadWait(p) }

func (a *answering) Write(p []byte) (int, error) {
	i := a.round + 1
	want := strconv.Itoa(1000+(i*7919)%9000) + "\r"
	if !bytes.Equal(p, []byte(want)) {
		return 0, io.ErrUnexpectedEOF
	}
	a.round++
	a.out = append(append(a.out[:0], p...), '\n')
	if a.round < a.rounds {
		a.out = a.prompt(a.out)
	}
	return len(p), nil
}

func (a *answering) Resize(uint16, uint16) error      { return nil }
func (a *answering) Wait() (driver.ExitStatus, error) { return driver.ExitStatus{}, nil }
func (a *answering) Close() error                     { return nil }
