// Command bench measures clai as a whole process against a floor measured in the same
// run: a minimal program that reads the pseudo-terminal in 64 KiB chunks, checks the
// tail for the prompt and discards the rest. It prints medians, ratios and clai's
// peak resident memory for the workloads of `make bench`:
//
//	W0  start-up: clai version, clai sessions, clai answer, clai suggest,
//	    clai-hook suggest and a clai run of a program that prompts at once, each a whole process,
//	    against a small Go program that opens a terminal, starts that
//	    program, answers it and waits (startfloor), in the same round
//	W1  64 MiB of coloured log lines, then "Continue? [y/n] " answered y
//	W1-16  W1 at 16 MiB, where clai's own start and end weigh more
//	W2  5,000 prompt/answer round trips, echoing a captured number through a template
//	W3  16 MiB with 200 decoy regex rules beside the real one, against one rule
//	W4  W1 at 256 MiB (memory must not grow with the output)
//	W5  W1 at 16 MiB with settings.match: screen, against the same in the stream
//	    (and the floor), all three in the same run
//	W6  50 concurrent headless runs with --remote, each asking a question that a
//	    webhook target tells a loopback server of, answered with clai answer:
//	    the time from the question to its notification, and from clai answer to
//	    the program reading the answer (p50, p99)
//	W7  W2 with a webhook notify target, against W2 without, in the same run
//	    (whole runs: the target is opened at the start and told of the end)
//	W8  the prompt latency the shell hooks of clai init add, in bash, zsh and
//	    fish, with the daemon down and up, against the same shell without
//	    them (p50, p99)
//	W9  a burst of 10,000 command events into clai daemon by 16 senders, as
//	    the hooks write them (appended to spool files) and as clai-hook ingest
//	    sends them (a connection an event): events/s and the transactions
//	    they took
//	W10 clai suggest and clai-hook suggest (the small client) p50/p99 against
//	    a daemon with 100,000 and 1,000,000 events in its database (built in
//	    bulk by the bench), against clai version, the same process doing nothing
//	W11 ten clai daemons started at once on a new database: exactly one
//	    migrates and serves
//	W12 a soak: one run of a program that draws a clock every 200 ms while
//	    it asks three questions, each answered 20 s after it opens, with a
//	    webhook that refuses 30% of requests and an ntfy server down for the
//	    first 5 s: questions per prompt, notifications and closes per
//	    question per target, the largest delay to delivery, lost questions
//	    (the engine's half, ten virtual minutes, is BenchmarkSoakRedrawingScreen)
//	W13 suggestions on a seeded history of three repositories, replayed
//	    through a daemon's ingest and asked before each command: top-1/3/5 by
//	    exact text and by template against global and repository frequency,
//	    Markov and Markov + frequency on the same stream, and the daemon's
//	    calibration
//	WH  20 concurrent clai runs asking on one Telegram bot (a loopback
//	    fake of the Bot API) through one hub, each question pressed in
//	    turn: misrouted presses and presses refused as moved on (both must
//	    be 0), press-to-typed p50/p99 against one run alone owning the bot
//	    (--own-channels), in the same run; what 20 runs each owning the bot
//	    do without the hub (presses refused or lost, 409 conflicts); the
//	    hub's memory with 100 sessions registered against none
//	WM  peak resident memory beside its bound: clai run on W1 at 16 MiB and
//	    W2 at 10,000 round trips (≤ 12 MiB, with the floor's), clai daemon
//	    serving suggestions from 1,000,000 events (≤ 64 MiB), clai dashboard
//	    serving 20 running sessions to two pages (≤ 40 MiB)
//
// Every process it starts has its runtime, config and state folders in a
// temporary folder, so the user's own sessions and config play no part.
//
// With -before BINARY, each run of W1–W5 and W7 measures that clai binary (a
// build of an earlier commit) too, in turn with the others, and a line of
// its own gives its ratio, taken as clai's is: two binaries on a machine
// whose speed swings are compared within the same runs.
//
// CLAI_BENCH_BINARY=PATH measures that clai binary (another commit's, built
// as make build builds it) instead of building the module's own.
//
// Usage: go run ./internal/cmd/bench [-runs 5] [-only W1,W3] [-before BINARY]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "floor-") {
		if err := floor(os.Args[1], os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	runs := flag.Int("runs", 5, "runs of each measurement (the median is reported)")
	only := flag.String("only", "", "comma-separated workloads to run (default: all)")
	before := flag.String("before", "", "a clai `binary` measured in the same runs as the one built (W1–W5, W7)")
	flag.Parse()
	if err := bench(*runs, *only, *before); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// measurement is one whole-process run.
type measurement struct {
	wall time.Duration
	// peakKiB is the process's own peak resident set (VmHWM), sampled while it ran.
	peakKiB int64
}

type workload struct {
	name, what string
	// floor is the floor program's arguments; clai the playbook to run, or "".
	floor []string
	clai  string
	// baseline, when set, is a second playbook the workload is compared to instead
	// of the floor (W3: the same run with one rule). With floor set too, the
	// floor is measured in the same run as well, and the ratio to it reported
	// on a line of its own, without a target (W5).
	baseline string
	// perOp divides times for a per-operation figure (W2: round trips); small,
	// when set, is a second run with that many operations, so that the figure
	// is the slope between the two and the fixed cost of starting and ending
	// a process is left out of it.
	perOp int
	small *workload
	// baseLabel names the baseline in the table, when it is no floor, one
	// rule or the stream.
	baseLabel string
	// repeat multiplies the runs of a short workload whose runs vary more
	// (W2: a run lasts a quarter of a second, and one slow moment of the
	// machine weighs on it).
	repeat int
	target float64
	// maxRSS, when set, is the most clai's peak resident memory may reach, in
	// MiB (W5).
	maxRSS float64
}

func bench(runs int, only, before string) error {
	dir, err := os.MkdirTemp("", "clai-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := isolate(dir); err != nil {
		return err
	}
	root, err := testprog.ModuleRoot()
	if err != nil {
		return err
	}
	clai, err := claiBinary(root, dir)
	if err != nil {
		return err
	}
	if err := testprog.BuildAll(dir, "flood", "roundtrip", "prompter"); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	flood, roundtrip := filepath.Join(dir, "flood"), filepath.Join(dir, "roundtrip")
	write := func(name, yaml string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			panic(err)
		}
		return p
	}
	// floodMatch is a playbook that answers the flood's question, with decoy
	// rules, matching the stream or the screen.
	floodMatch := func(name, size string, decoys int, match string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "version: 1\nname: %s\nspawn: {command: [%q, -bytes, %s]}\nsettings: {min_send_interval: 0s, match: %s}\nrules:\n", name, flood, size, match)
		for i := range decoys {
			fmt.Fprintf(&b, "  - {name: decoy-%d, match: {regex: 'Decoy question %d (?P<what>\\w+)\\? \\[(yes|no)\\]'}, line: \"no\", limit: 1}\n", i, i)
		}
		b.WriteString("  - {name: continue, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n")
		return write(name+".yaml", b.String())
	}
	floodPlaybook := func(name, size string, decoys int) string {
		return floodMatch(name, size, decoys, "stream")
	}
	const rounds, fewRounds = 5000, 1000
	w2 := func(n int) string {
		return write(fmt.Sprintf("w2-%d.yaml", n), fmt.Sprintf("version: 1\nname: w2\nspawn: {command: [%q, -n, \"%d\"]}\nsettings: {min_send_interval: 0s}\nrules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n", roundtrip, n))
	}
	// W7's target is told of every event, its end too, so that each run
	// sends one notification and its notifier follows the whole run.
	var told atomic.Int64
	h, err := startHook(func(arrival) { told.Add(1) })
	if err != nil {
		return err
	}
	defer h.Close()
	w7 := func(n int) string {
		return write(fmt.Sprintf("w7-%d.yaml", n), fmt.Sprintf("version: 1\nname: w7\nspawn: {command: [%q, -n, \"%d\"]}\nsettings: {min_send_interval: 0s}\n"+
			"notify:\n  - {webhook: {url: %q}, on: [question, danger, manual, timeout, done, failed]}\n"+
			"rules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n", roundtrip, n, h.url))
	}
	workloads := []workload{
		{name: "W1", what: "64 MiB coloured log, then a prompt", floor: []string{"floor-flood", flood, "64MiB"}, clai: floodPlaybook("w1", "64MiB", 0), target: 1.15},
		{name: "W1-16", what: "16 MiB coloured log, then a prompt", floor: []string{"floor-flood", flood, "16MiB"}, clai: floodPlaybook("w1-16", "16MiB", 0), target: 1.05},
		{name: "W2", what: fmt.Sprintf("%d round trips through a template", rounds), floor: []string{"floor-roundtrip", roundtrip, strconv.Itoa(rounds)},
			clai: w2(rounds), perOp: rounds - fewRounds, repeat: 3, target: 1.00,
			small: &workload{floor: []string{"floor-roundtrip", roundtrip, strconv.Itoa(fewRounds)}, clai: w2(fewRounds)}},
		{name: "W3", what: "16 MiB, 200 decoy regex rules vs one rule", clai: floodPlaybook("w3", "16MiB", 200), baseline: floodPlaybook("w3-one", "16MiB", 0), target: 1.3},
		{name: "W4", what: "256 MiB coloured log, then a prompt", floor: []string{"floor-flood", flood, "256MiB"}, clai: floodPlaybook("w4", "256MiB", 0), target: 1.15},
		{name: "W5", what: "W1 at 16 MiB matched on the screen, vs the stream", floor: []string{"floor-flood", flood, "16MiB"},
			clai: floodMatch("w5", "16MiB", 0, "screen"), baseline: floodMatch("w5-stream", "16MiB", 0, "stream"), target: 3, maxRSS: 20},
		// W7 compares whole runs, start and end included: the target is
		// opened as the run starts and told of its end, and the difference
		// of two runs, as W2 takes it, would leave that out and add their
		// noise twice.
		{name: "W7", what: fmt.Sprintf("W2 with a webhook notify target vs without (%d round trips, whole runs)", rounds),
			clai: w7(rounds), baseline: w2(rounds), baseLabel: "no target", perOp: rounds, repeat: 3, target: 1.10},
	}
	selected := func(name string) bool { return only == "" || slices.Contains(strings.Split(only, ","), name) }
	sb := suggestBench{clai: clai, dir: dir}
	if selected("W0") || selected("W10") || selected("WM") {
		if sb.hook, err = hookBinary(root, dir, clai); err != nil {
			return err
		}
	}
	if selected("W0") {
		floor, err := buildStartFloor(root, dir)
		if err != nil {
			return err
		}
		s := startupBench{clai: clai, prompter: filepath.Join(dir, "prompter"), floor: floor, dir: dir, sb: sb}
		if err := s.benchStartup(runs * 4); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	headed := false
	for _, w := range workloads {
		if !selected(w.name) {
			continue
		}
		if !headed {
			fmt.Fprintln(tw, "workload\tbaseline median\tclai median\tratio\truns' ratios\ttarget\tclai peak RSS\t")
			headed = true
		}
		sent := told.Load()
		// A first pair warms the caches (the file system's, the CPU's); it is
		// not counted.
		if _, err := pair(self, clai, before, w, 0); err != nil {
			return err
		}
		var base, mine, floors, prior []time.Duration
		var ratios, floorRatios, priorRatios []float64
		var peak, priorPeak int64
		for i := range runs * max(w.repeat, 1) {
			// Which goes first turns, so none always runs on a warmer machine.
			r, err := pair(self, clai, before, w, i)
			if err != nil {
				return err
			}
			bw, mw, pw, pbw := r.base.wall, r.mine.wall, r.prior.wall, r.priorBase.wall
			if w.small != nil {
				rs, err := pair(self, clai, before, *w.small, i)
				if err != nil {
					return err
				}
				bw, mw, pw, pbw = bw-rs.base.wall, mw-rs.mine.wall, pw-rs.prior.wall, pbw-rs.priorBase.wall
			}
			base, mine = append(base, bw), append(mine, mw)
			ratios = append(ratios, float64(mw)/float64(bw))
			if r.floor.wall > 0 {
				floors, floorRatios = append(floors, r.floor.wall), append(floorRatios, float64(mw)/float64(r.floor.wall))
			}
			peak = max(peak, r.mine.peakKiB)
			if before != "" {
				// The earlier binary against its own baseline run, or the floor.
				if w.baseline == "" {
					pbw = bw
				}
				prior, priorRatios = append(prior, pw), append(priorRatios, float64(pw)/float64(pbw))
				priorPeak = max(priorPeak, r.prior.peakKiB)
			}
		}
		bm, mm, ratio := median(base), median(mine), median(ratios)
		label := "floor"
		switch {
		case w.baseLabel != "":
			label = w.baseLabel
		case w.baseline != "" && w.floor != nil:
			label = "stream"
		case w.baseline != "":
			label = "1 rule"
		}
		bs, ms := bm.Round(time.Millisecond).String(), mm.Round(time.Millisecond).String()
		if w.perOp > 0 {
			bs = fmt.Sprintf("%.1fµs/op", float64(bm.Nanoseconds())/1e3/float64(w.perOp))
			ms = fmt.Sprintf("%.1fµs/op", float64(mm.Nanoseconds())/1e3/float64(w.perOp))
		}
		verdict := "ok"
		if ratio > w.target {
			verdict = "OVER"
		}
		rss := fmt.Sprintf("%.1f MiB", float64(peak)/1024)
		if w.maxRSS > 0 {
			over := "ok"
			if float64(peak)/1024 > w.maxRSS {
				over = "OVER"
			}
			rss += fmt.Sprintf(" (≤%.0f %s)", w.maxRSS, over)
		}
		fmt.Fprintf(tw, "%s %s\t%s (%s)\t%s\t%.3f×\t%.2f–%.2f×\t≤%.2f× %s\t%s\t\n", w.name, w.what, bs, label, ms, ratio,
			slices.Min(ratios), slices.Max(ratios), w.target, verdict, rss)
		if len(floors) > 0 {
			fmt.Fprintf(tw, "%s against the floor\t%s (floor)\t%s\t%.3f×\t%.2f–%.2f×\t-\t\t\n", w.name, median(floors).Round(time.Millisecond), ms,
				median(floorRatios), slices.Min(floorRatios), slices.Max(floorRatios))
		}
		if len(prior) > 0 {
			ps := median(prior).Round(time.Millisecond).String()
			if w.perOp > 0 {
				ps = fmt.Sprintf("%.1fµs/op", float64(median(prior).Nanoseconds())/1e3/float64(w.perOp))
			}
			of := "the same " + label
			if w.baseline != "" {
				of = "its own " + label
			}
			fmt.Fprintf(tw, "%s, -before binary, same runs\t(%s)\t%s\t%.3f×\t%.2f–%.2f×\t-\t%.1f MiB\t\n", w.name, of, ps,
				median(priorRatios), slices.Min(priorRatios), slices.Max(priorRatios), float64(priorPeak)/1024)
		}
		tw.Flush()
		if w.name == "W7" {
			// Each pair, the first one too, ran the target's playbook once
			// (and once more with -before).
			perPair := int64(1)
			if before != "" {
				perPair = 2
			}
			if got, want := told.Load()-sent, perPair*int64(1+runs*w.repeat); got != want {
				return fmt.Errorf("W7: %w: %d notifications for %d runs", errNoHook, got, want)
			}
		}
	}
	if selected("W8") {
		if err := benchPrompt(dir, runs); err != nil {
			return err
		}
	}
	if selected("W9") {
		if err := sb.benchIngest(runs, 10_000); err != nil {
			return err
		}
	}
	if selected("W10") {
		if err := sb.benchSuggestLatency(runs, []int{100_000, 1_000_000}); err != nil {
			return err
		}
	}
	if selected("W11") {
		if err := sb.benchMigrationRace(runs); err != nil {
			return err
		}
	}
	if selected("W6") {
		r := remoteRuns{clai: clai, prompter: filepath.Join(dir, "prompter"), dir: dir, n: 50, limit: 2 * time.Minute}
		if err := benchRemote(r, runs); err != nil {
			return err
		}
	}
	if selected("WM") {
		floor, err := buildStartFloor(root, dir)
		if err != nil {
			return err
		}
		m := memoryBench{clai: clai, dir: dir, flood: flood, roundtrip: roundtrip, prompter: filepath.Join(dir, "prompter"), startFloor: floor, sb: sb}
		if err := m.benchMemory(runs); err != nil {
			return err
		}
	}
	if selected("WH") {
		b := hubBench{clai: clai, prompter: filepath.Join(dir, "prompter"), dir: dir, n: 20, limit: time.Minute}
		if err := benchHub(b, runs); err != nil {
			return err
		}
	}
	if selected("W13") {
		if err := sb.benchEval(); err != nil {
			return err
		}
	}
	if selected("W12") {
		// One run: it lasts over a minute of real time by design.
		if err := benchSoak(clai, filepath.Join(dir, "prompter"), dir); err != nil {
			return err
		}
	}
	fmt.Printf("\n%d runs each (W2, W7: %d), after one not counted. A run measures the baseline and clai back to back, in turn first;\n"+
		"ratio = the median over runs of clai / baseline in the same run. W2 per round trip = (time at %d − time at %d) / %d\n"+
		"within a run, which leaves out starting and ending the process\n", runs, 3*runs, rounds, fewRounds, rounds-fewRounds)
	return tw.Flush()
}
