package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clai-sh/clai/runner/notify"
)

// hook is a loopback HTTP server that takes clai's webhook notifications and
// hands each, with the time it arrived, to a function.
type hook struct {
	url    string
	server *http.Server
	done   chan struct{}
}

// arrival is a notification as the hook got it.
type arrival struct {
	at time.Time
	n  notify.Notification
}

// startHook listens on a loopback port and calls got for every notification
// that arrives, from the request's goroutine.
func startHook(got func(arrival)) (*hook, error) { return startRefusingHook(got, nil) }

// startRefusingHook is startHook whose server answers 503, and takes
// nothing, to each request refuse says to refuse (nil refuses none).
func startRefusingHook(got func(arrival), refuse func() bool) (*hook, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webhook server: %w", err)
	}
	h := &hook{url: "http://" + ln.Addr().String() + "/hook", done: make(chan struct{})}
	h.server = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		if refuse != nil && refuse() {
			http.Error(w, "down a moment", http.StatusServiceUnavailable)
			return
		}
		var a arrival
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&a.n); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a.at = at
		got(a)
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() {
		defer close(h.done)
		_ = h.server.Serve(ln)
	}()
	return h, nil
}

// Close stops the server and waits for it.
func (h *hook) Close() {
	_ = h.server.Close()
	<-h.done
}

// remoteRuns is W6: n concurrent headless `clai run --remote` runs of a
// program that asks one question, each told to the hook by a webhook target
// and answered with `clai answer`, as a person would answer it.
type remoteRuns struct {
	clai, prompter, dir string
	n                   int
	// limit bounds one round of n runs, so that a run that never asks or
	// never ends is an error that says so, not a hang.
	limit time.Duration
}

// remoteResult is one round of n runs.
type remoteResult struct {
	// notified is, for each question, the time from its opening (asked_at)
	// to its notification reaching the hook; answered from `clai answer`
	// starting to the program reading the answer's last byte.
	notified, answered []time.Duration
	wall               time.Duration
}

// remoteRun is one of the runs of a round.
type remoteRun struct {
	name, playbook, stamp string
	cmd                   *exec.Cmd
	out                   bytes.Buffer
	// answerStarted is when its `clai answer` was started.
	answerStarted time.Time
}

// round starts n runs at once, answers each question as its notification
// arrives, and waits for every run to end; every process and file it made is
// gone when it returns.
func (r remoteRuns) round() (remoteResult, error) {
	dir, err := os.MkdirTemp(r.dir, "w6-")
	if err != nil {
		return remoteResult{}, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), r.limit)
	defer cancel()

	arrivals := make(chan arrival, r.n)
	h, err := startHook(func(a arrival) {
		select {
		case arrivals <- a:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return remoteResult{}, err
	}
	defer h.Close()

	runs := make(map[string]*remoteRun, r.n)
	for i := range r.n {
		run, err := r.prepare(ctx, dir, h.url, i)
		if err != nil {
			return remoteResult{}, err
		}
		runs[run.name] = run
	}
	var res remoteResult
	start := time.Now()
	var wg sync.WaitGroup
	exits := make(chan error, r.n)
	for _, run := range runs {
		if err := run.cmd.Start(); err != nil {
			cancel()
			wg.Wait()
			return res, fmt.Errorf("W6: start %s: %w", run.name, err)
		}
		wg.Go(func() {
			if err := run.cmd.Wait(); err != nil {
				exits <- fmt.Errorf("W6: %s: clai run: %w\n%s", run.name, err, run.out.String())
			}
		})
	}
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	// Every process is waited for, whatever happens next.
	defer func() { cancel(); <-ended }()

	answers, answerErrs := make(chan struct{}, r.n), make(chan error, r.n)
	var answering sync.WaitGroup
	defer answering.Wait()
	for asked := 0; asked < r.n; {
		select {
		case a := <-arrivals:
			run := runs[a.n.Session.Name]
			if a.n.Question == nil || run == nil || !run.answerStarted.IsZero() {
				return res, fmt.Errorf("W6: a notification that is no first question of a run: %s %q of session %q", a.n.Event, a.n.Text, a.n.Session.Name)
			}
			asked++
			res.notified = append(res.notified, a.at.Sub(a.n.Question.AskedAt))
			run.answerStarted = time.Now()
			answering.Go(func() {
				if err := r.answer(ctx, a.n, run.name); err != nil {
					answerErrs <- err
					return
				}
				answers <- struct{}{}
			})
		case err := <-answerErrs:
			return res, err
		case err := <-exits:
			return res, err
		case <-ctx.Done():
			return res, fmt.Errorf("W6: %d of %d runs asked within %v; waiting for %s", asked, r.n, r.limit, missing(runs))
		}
	}
	for answered := 0; answered < r.n; answered++ {
		select {
		case <-answers:
		case err := <-answerErrs:
			return res, err
		case <-ctx.Done():
			return res, fmt.Errorf("W6: %d of %d answers typed within %v", answered, r.n, r.limit)
		}
	}
	select {
	case <-ended:
	case <-ctx.Done():
		return res, fmt.Errorf("W6: not every run ended within %v after its answer", r.limit)
	}
	res.wall = time.Since(start)
	select {
	case err := <-exits:
		return res, err
	default:
	}
	for _, run := range runs {
		read, err := readStamp(run.stamp)
		if err != nil {
			return res, fmt.Errorf("W6: %s: %w", run.name, err)
		}
		res.answered = append(res.answered, read.Sub(run.answerStarted))
	}
	return res, nil
}

// prepare writes run i's playbook and makes its command, not started.
func (r remoteRuns) prepare(ctx context.Context, dir, hookURL string, i int) (*remoteRun, error) {
	run := &remoteRun{name: fmt.Sprintf("w6-%d", i), stamp: filepath.Join(dir, fmt.Sprintf("stamp-%d", i))}
	run.playbook = filepath.Join(dir, run.name+".yaml")
	yaml := fmt.Sprintf("version: 1\nname: %s\nspawn: {command: [%q, -q, \"Name: \", -stamp, %q]}\n"+
		"settings: {min_send_interval: 0s}\ntimeouts: {prompt: %s}\n"+
		"notify:\n  - {webhook: {url: %q}, on: [question], dedup: 0s}\n"+
		"rules:\n  - {name: never, match: {regex: 'never asked'}, line: \"no\"}\n",
		run.name, r.prompter, run.stamp, r.limit, hookURL)
	if err := os.WriteFile(run.playbook, []byte(yaml), 0o644); err != nil {
		return nil, err
	}
	run.cmd = exec.CommandContext(ctx, r.clai, "run", "--remote", "-q", "--log", os.DevNull, run.playbook)
	run.cmd.Stdout, run.cmd.Stderr = &run.out, &run.out
	stopGently(run.cmd)
	return run, nil
}

// answer runs `clai answer` for the notification's question; it must exit 0.
func (r remoteRuns) answer(ctx context.Context, n notify.Notification, name string) error {
	cmd := exec.CommandContext(ctx, r.clai, "answer", "--question", n.Question.ID, n.Session.ID, "answer of "+name)
	stopGently(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("W6: %s: clai answer --question %s %s: %w\n%s", name, n.Question.ID, n.Session.ID, err, out)
	}
	return nil
}

// stopGently makes a command that outlives its context get SIGTERM, so that
// clai ends its program, and SIGKILL 5 s later.
func stopGently(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
}

// missing names the runs whose question has not arrived.
func missing(runs map[string]*remoteRun) string {
	var names []string
	for name, run := range runs {
		if run.answerStarted.IsZero() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// readStamp reads the one time the program wrote when it read its answer.
func readStamp(path string) (time.Time, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, fmt.Errorf("the program wrote no time it read its answer: %w", err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("the program's time of reading its answer: %w", err)
	}
	return time.Unix(0, ns), nil
}

// percentile returns the p-th percentile (0 < p ≤ 1) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[max(int(math.Ceil(p*float64(len(s))))-1, 0)]
}

// benchRemote runs W6 once, not counted, then runs times, and prints the
// latencies over every run's questions.
func benchRemote(r remoteRuns, runs int) error {
	if _, err := r.round(); err != nil {
		return err
	}
	var notified, answered, walls []time.Duration
	for range runs {
		res, err := r.round()
		if err != nil {
			return err
		}
		notified, answered = append(notified, res.notified...), append(answered, res.answered...)
		walls = append(walls, res.wall)
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3) }
	fmt.Printf("\nW6 %d concurrent clai run --remote, each question told to a webhook and answered with clai answer (%d rounds):\n", r.n, runs)
	fmt.Printf("  question opened → notification arrived   p50 %s  p99 %s  (max %s)\n", ms(percentile(notified, 0.5)), ms(percentile(notified, 0.99)), ms(slices.Max(notified)))
	fmt.Printf("  clai answer started → program read it    p50 %s  p99 %s  (max %s)\n", ms(percentile(answered, 0.5)), ms(percentile(answered, 0.99)), ms(slices.Max(answered)))
	fmt.Printf("  wall time of %d runs                      median %s  (%s–%s); all %d runs exited 0\n", r.n,
		median(walls).Round(time.Millisecond), slices.Min(walls).Round(time.Millisecond), slices.Max(walls).Round(time.Millisecond), r.n*runs)
	return nil
}

// errNoHook is returned when a workload's notifications did not all arrive.
var errNoHook = errors.New("the webhook target was not told of every run")
