package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/hub"
)

// The bot of WH: its token (any the fake takes) and the chat it answers in.
const (
	hubBenchToken = "123456:AAHbench-token_value"
	hubBenchChat  = 4242
	// hubBenchTokenEnv carries the token to the runs and the hub, as a
	// user's config names it.
	hubBenchTokenEnv = "CLAI_BENCH_TG"
)

// hubBench is WH: runs asking on one Telegram bot, a loopback fake of the
// Bot API (runner/channel/channeltest), through the hub and owning the bot
// themselves.
type hubBench struct {
	clai, prompter, dir string
	// n runs at once share the bot.
	n int
	// limit bounds each step that waits for a process or the fake, so that
	// one that never comes is an error that says so, not a hang.
	limit time.Duration
}

// hubRound is n runs at once through one hub: every question reached the
// bot once, then each is pressed in turn once the one before was typed, as
// a person goes down the phone's list; or, in a burst, every button at
// once. The hub is stopped at the end and waited for.
type hubRound struct {
	latencies                  []time.Duration
	misrouted, refused, twice  int
	conflicts, getUpdatesCalls int
}

// settled is what became of one run's press.
type settled struct {
	outcome pressOutcome
	d       time.Duration
	err     error
}

func (b hubBench) hubRound(burst bool) (res hubRound, err error) {
	e, err := b.newEnv("wh-hub")
	if err != nil {
		return res, err
	}
	defer e.close()
	var runs []*hubRun
	defer func() {
		for _, r := range runs {
			r.stop()
		}
		if serr := b.stopHub(e); serr != nil && err == nil {
			err = serr
		}
	}()
	if err := b.startAsked(e, false, &runs); err != nil {
		return res, err
	}
	settle := func(r *hubRun) settled {
		ctx, cancel := context.WithTimeout(context.Background(), b.limit)
		defer cancel()
		outcome, d, err := b.settle(ctx, e, r)
		return settled{outcome, d, err}
	}
	results := make([]settled, len(runs))
	if burst {
		for _, r := range runs {
			r.press(e)
		}
		var wg sync.WaitGroup
		for k, r := range runs {
			wg.Go(func() { results[k] = settle(r) })
		}
		wg.Wait()
	} else {
		for k, r := range runs {
			r.press(e)
			if results[k] = settle(r); results[k].err != nil {
				break
			}
		}
	}
	for k, x := range results {
		if x.err != nil {
			return res, x.err
		}
		switch x.outcome {
		case typed:
			res.latencies = append(res.latencies, x.d)
		case misrouted:
			res.misrouted++
		case refused:
			res.refused++
		case lost:
			return res, fmt.Errorf("WH: %s's press was never answered by the hub within %v:\n%s%s", runs[k].name, b.limit, runs[k].out.String(), e.hubLog())
		}
	}
	e.tg.Snapshot(func(f *channeltest.Telegram) {
		for _, r := range runs {
			if _, n := questionOf(f, r.name); n != 1 {
				res.twice++
			}
		}
		res.conflicts, res.getUpdatesCalls = f.Conflicts(), f.Calls("getUpdates")
	})
	return res, nil
}

// stopHub stops the hub of e (clai hub stop) and waits until its process
// is gone; no hub is no error.
func (b hubBench) stopHub(e *hubEnv) error {
	data, err := os.ReadFile(hub.LockPath(filepath.Join(e.runtime, "clai")))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("WH: the hub's lock: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("WH: the hub's lock holds %q", data)
	}
	cmd := exec.Command(b.clai, "hub", "stop")
	cmd.Env = e.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("WH: clai hub stop: %w\n%s", err, out)
	}
	deadline := time.Now().Add(b.limit)
	for processLives(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("WH: the hub (process %d) still runs %v after clai hub stop", pid, b.limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// processLives says whether pid is a process that has not ended: not
// gone, no zombie.
func processLives(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// direct is one run alone owning the bot (clai run --own-channels), its
// question pressed once it reached the bot: the press-to-typed latency.
func (b hubBench) direct() (d time.Duration, err error) {
	e, err := b.newEnv("wh-own")
	if err != nil {
		return 0, err
	}
	defer e.close()
	r, err := b.start(e, 0, true)
	if err != nil {
		return 0, err
	}
	defer r.stop()
	ctx, cancel := context.WithTimeout(context.Background(), b.limit)
	defer cancel()
	if err := b.waitAsked(ctx, e, []*hubRun{r}); err != nil {
		return 0, err
	}
	r.press(e)
	outcome, d, err := b.settle(ctx, e, r)
	switch {
	case err != nil:
		return 0, err
	case outcome != typed:
		return 0, fmt.Errorf("WH: the run alone on its bot did not type its press (outcome %d, got %q):\n%s", outcome, r.got(), r.out.String())
	}
	return d, nil
}

// sharedRound is what becomes of n runs at once that each own the bot
// (--own-channels), without the hub: every question sent, then every
// button pressed at once; each press is typed, typed in the wrong run,
// refused as moved on, or lost (no run typed it within the window).
type sharedRound struct {
	asked, typed, misrouted, refused, lost, conflicts int
}

// startAsked starts b.n runs of e (owning the bot when own), each added to
// runs as it starts, so that the caller stops every one it started, and
// waits until every question reached the bot.
func (b hubBench) startAsked(e *hubEnv, own bool, runs *[]*hubRun) error {
	for i := range b.n {
		r, err := b.start(e, i, own)
		if err != nil {
			return err
		}
		*runs = append(*runs, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.limit)
	defer cancel()
	return b.waitAsked(ctx, e, *runs)
}

// sharedWindow is how long the presses of sharedRound are given.
const sharedWindow = 10 * time.Second

func (b hubBench) sharedRound() (res sharedRound, err error) {
	e, err := b.newEnv("wh-shared")
	if err != nil {
		return res, err
	}
	defer e.close()
	var runs []*hubRun
	defer func() {
		for _, r := range runs {
			r.stop()
		}
	}()
	if err := b.startAsked(e, true, &runs); err != nil {
		return res, err
	}
	res.asked = len(runs)
	for _, r := range runs {
		r.press(e)
	}
	window, cancelWindow := context.WithTimeout(context.Background(), sharedWindow)
	defer cancelWindow()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Go(func() {
			outcome, _, err := b.settle(window, e, r)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				res.lost++ // answered, but its run never ended with it
			case outcome == typed:
				res.typed++
			case outcome == misrouted:
				res.misrouted++
			case outcome == refused:
				res.refused++
			default:
				res.lost++
			}
		})
	}
	wg.Wait()
	e.tg.Snapshot(func(f *channeltest.Telegram) { res.conflicts = f.Conflicts() })
	return res, nil
}

// benchHub runs WH: rounds of n runs at once through the hub against n
// runs alone owning the bot, in turn; one round of n runs at once each
// owning the bot; the hub's memory with 0 and 100 sessions.
func benchHub(b hubBench, runs int) error {
	// A first round and run, not counted, warm the caches.
	if _, err := b.hubRound(false); err != nil {
		return err
	}
	if _, err := b.direct(); err != nil {
		return err
	}
	var viaHub, alone []time.Duration
	var total hubRound
	var ratios []float64
	for i := range runs {
		var round hubRound
		var own []time.Duration
		hubFirst := i%2 == 0
		doHub := func() error {
			var err error
			round, err = b.hubRound(false)
			return err
		}
		doOwn := func() error {
			for range b.n {
				d, err := b.direct()
				if err != nil {
					return err
				}
				own = append(own, d)
			}
			return nil
		}
		steps := []func() error{doHub, doOwn}
		if !hubFirst {
			steps = []func() error{doOwn, doHub}
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		viaHub, alone = append(viaHub, round.latencies...), append(alone, own...)
		ratios = append(ratios, float64(median(round.latencies))/float64(median(own)))
		total.misrouted += round.misrouted
		total.refused += round.refused
		total.twice += round.twice
		total.conflicts += round.conflicts
	}
	burst, err := b.hubRound(true)
	if err != nil {
		return err
	}
	total.misrouted += burst.misrouted
	total.refused += burst.refused
	total.twice += burst.twice
	total.conflicts += burst.conflicts
	shared, err := b.sharedRound()
	if err != nil {
		return err
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3) }
	row := func(label, format string, args ...any) {
		fmt.Printf("  %-56s "+format+"\n", append([]any{label}, args...)...)
	}
	fmt.Printf("\nWH %d concurrent clai run on one Telegram bot (a loopback fake) through one hub, each question pressed in turn\n", b.n)
	fmt.Printf("   once the one before was typed, against one run alone owning the bot (--own-channels) (%d rounds, %d presses each),\n", runs, len(viaHub))
	fmt.Printf("   and one round of %d whose buttons are all pressed at once (counted in the first three rows):\n", b.n)
	row("misrouted presses (a program read another option)", "%d (must be 0)", total.misrouted)
	row("presses refused as moved on", "%d (must be 0)", total.refused)
	row("questions sent other than once; 409 conflicts", "%d; %d", total.twice, total.conflicts)
	row("press queued → program read it, through the hub", "p50 %s  p99 %s  (max %s)", ms(percentile(viaHub, 0.5)), ms(percentile(viaHub, 0.99)), ms(slices.Max(viaHub)))
	row(fmt.Sprintf("the same, one run alone owning the bot (%d runs)", len(alone)), "p50 %s  p99 %s  (max %s)", ms(percentile(alone, 0.5)), ms(percentile(alone, 0.99)), ms(slices.Max(alone)))
	row(fmt.Sprintf("the same, %d buttons pressed at once, through the hub", b.n), "p50 %s  p99 %s  (min %s)", ms(percentile(burst.latencies, 0.5)), ms(percentile(burst.latencies, 0.99)), ms(slices.Min(burst.latencies)))
	row("hub / alone: the median of the rounds' ratios of p50s", "%.2f× (%.2f–%.2f×); of all presses, p50 %.2f×  p99 %.2f×",
		median(ratios), slices.Min(ratios), slices.Max(ratios),
		float64(percentile(viaHub, 0.5))/float64(percentile(alone, 0.5)), float64(percentile(viaHub, 0.99))/float64(percentile(alone, 0.99)))
	fmt.Printf("  without the hub, %d runs at once each owning the bot, every button pressed at once (%v window):\n", b.n, sharedWindow)
	fmt.Printf("    %d typed, %d misrouted, %d refused as moved on, %d lost; the fake ended %d getUpdates with 409 Conflict\n",
		shared.typed, shared.misrouted, shared.refused, shared.lost, shared.conflicts)
	if err := benchHubMemory(b, runs); err != nil {
		return err
	}
	if total.misrouted > 0 || total.refused > 0 || total.twice > 0 {
		return fmt.Errorf("WH: through the hub, %d presses misrouted, %d refused, %d questions not sent once", total.misrouted, total.refused, total.twice)
	}
	return nil
}

// tail is the last n bytes of b at most.
func tail(b []byte, n int) []byte { return b[max(len(b)-n, 0):] }
