package runner_test

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/pty"
	"github.com/clai-sh/clai/runner/engine"
)

// BenchmarkRunRoundTrips is workload W2 in process: prompt/answer round trips with
// a captured number echoed through a template, real PTY, real program.
func BenchmarkRunRoundTrips(b *testing.B) {
	const rounds = 2000
	bin := testprog.Build(b, "roundtrip")
	src := "version: 1\nname: w2\nspawn: {command: [\"" + bin + "\", -n, \"2000\"]}\nsettings: {min_send_interval: 0s}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n"
	pb, findings := playbooks.Parse("w2.yaml", []byte(src))
	if pb == nil {
		b.Fatal(findings)
	}
	for b.Loop() {
		rep, err := runner.Run(b.Context(), pb)
		if err != nil || rep.ExitCode != 0 {
			b.Fatalf("%v %+v", err, rep)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*rounds), "µs/roundtrip")
}

// BenchmarkRunRoundTripsWatched is BenchmarkRunRoundTrips with the run's desk
// handed out and two watchers: one that reads every update, one that never
// reads. The question machinery is off the answer's path: the figures are
// those of the run without them.
func BenchmarkRunRoundTripsWatched(b *testing.B) {
	const rounds = 2000
	bin := testprog.Build(b, "roundtrip")
	src := "version: 1\nname: w2\nspawn: {command: [\"" + bin + "\", -n, \"2000\"]}\nsettings: {min_send_interval: 0s}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n"
	pb, findings := playbooks.Parse("w2.yaml", []byte(src))
	if pb == nil {
		b.Fatal(findings)
	}
	for b.Loop() {
		var read sync.WaitGroup
		rep, err := runner.Run(b.Context(), pb, runner.WithDesk(func(d ask.Desk) {
			updates := d.Watch(b.Context())
			_ = d.Watch(b.Context())
			read.Go(func() {
				for range updates {
				}
			})
		}))
		if err != nil || rep.ExitCode != 0 {
			b.Fatalf("%v %+v", err, rep)
		}
		read.Wait()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*rounds), "µs/roundtrip")
}

// BenchmarkEngineOutput measures the engine alone on a coloured log, with one rule
// and with 200 decoy regex rules beside it.
func BenchmarkEngineOutput(b *testing.B) {
	line := "\x1b[32m12:00:01.123\x1b[0m \x1b[1mINFO\x1b[0m compiling package github.com/example/module/internal/thing ... ok\r\n"
	chunk := []byte(strings.Repeat(line, 64<<10/len(line)))
	for _, decoys := range []int{0, 200} {
		var sb strings.Builder
		sb.WriteString("version: 1\nname: e\nspawn: {command: [x]}\nrules:\n")
		for i := range decoys {
			sb.WriteString("  - {name: decoy-" + itoa(i) + ", match: {regex: 'Decoy question " + itoa(i) + " (?P<what>\\w+)\\? \\[(yes|no)\\]'}, line: \"no\", limit: 1}\n")
		}
		sb.WriteString("  - {name: continue, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n")
		pb, findings := playbooks.Parse("e.yaml", []byte(sb.String()))
		if pb == nil {
			b.Fatal(findings)
		}
		b.Run("rules="+itoa(decoys+1), func(b *testing.B) {
			e := engine.NewEngine(pb, engine.Config{})
			now := time.Unix(0, 0)
			e.Start(now)
			b.SetBytes(int64(len(chunk)))
			for b.Loop() {
				now = now.Add(time.Millisecond)
				e.Output(now, chunk)
			}
		})
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// BenchmarkEngineRoundTrip measures the engine's share of one W2 round trip: the
// prompt, the answer through a template, the echo.
func BenchmarkEngineRoundTrip(b *testing.B) {
	src := "version: 1\nname: w2\nspawn: {command: [x]}\nsettings: {min_send_interval: 0s}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n"
	pb, findings := playbooks.Parse("w2.yaml", []byte(src))
	if pb == nil {
		b.Fatal(findings)
	}
	// A monotonic time, as a run's clock gives: times without one are slower
	// to compare.
	now := time.Now()
	// A rule fires at most a million times a run: a longer benchmark takes a
	// new engine for each million.
	const perEngine = 1_000_000
	var e *engine.Engine
	fired := perEngine
	prompt, echo := []byte("Enter code 48213 [17]: "), []byte("48213\r\n")
	b.ReportAllocs()
	for b.Loop() {
		if fired == perEngine {
			e, fired = engine.NewEngine(pb, engine.Config{}), 0
			e.Start(now)
		}
		now = now.Add(10 * time.Microsecond)
		if !slices.ContainsFunc(e.Output(now, prompt), isSend) {
			b.Fatalf("no answer after %d: %s", fired, e.State())
		}
		fired++
		now = now.Add(10 * time.Microsecond)
		e.Output(now, echo)
	}
}

func isSend(a engine.Action) bool {
	_, ok := a.(*engine.Send)
	return ok
}

// BenchmarkRunFlood is workload W1 in process, at 16 MiB, matched in the stream
// and, as workload W5, on the screen.
func BenchmarkRunFlood(b *testing.B) {
	bin := testprog.Build(b, "flood")
	for _, match := range []string{"stream", "screen"} {
		src := "version: 1\nname: w1\nspawn: {command: [\"" + bin + "\", -bytes, 16MiB]}\nsettings: {min_send_interval: 0s, match: " + match + "}\nrules:\n  - {name: continue, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n"
		pb, findings := playbooks.Parse("w1.yaml", []byte(src))
		if pb == nil {
			b.Fatal(findings)
		}
		b.Run("match="+match, func(b *testing.B) {
			b.SetBytes(16 << 20)
			for b.Loop() {
				rep, err := runner.Run(b.Context(), pb)
				if err != nil || rep.ExitCode != 0 {
					b.Fatalf("%v %+v", err, rep)
				}
			}
		})
	}
}

// BenchmarkFloorRoundTrips is the floor of BenchmarkRunRoundTrips: the same driver
// and program, answered by a minimal loop instead of the engine.
func BenchmarkFloorRoundTrips(b *testing.B) {
	const rounds = 2000
	bin := testprog.Build(b, "roundtrip")
	buf := make([]byte, 64<<10)
	for b.Loop() {
		p, err := pty.Start(b.Context(), pty.Options{Argv: []string{bin, "-n", "2000"}})
		if err != nil {
			b.Fatal(err)
		}
		var tail []byte
		for {
			n, err := p.ReadBefore(buf, time.Now().Add(time.Second))
			tail = append(tail, buf[:n]...)
			if bytes.HasSuffix(tail, []byte("]: ")) {
				i := bytes.LastIndex(tail, []byte("Enter code "))
				code, _, _ := bytes.Cut(tail[i+11:], []byte(" "))
				if _, err := p.Write(append(code, '\r')); err != nil {
					b.Fatal(err)
				}
				tail = tail[:0]
			}
			if err != nil {
				break
			}
		}
		p.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*rounds), "µs/roundtrip")
}
