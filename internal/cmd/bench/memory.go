package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Peak resident memory bounds (MiB) of WM, issue 25's "memory at the
// floor's scale".
const (
	boundRun       = 12
	boundDaemon    = 64
	boundDashboard = 40
)

// memoryBench is WM: the peak resident memory of clai run on W1 at 16 MiB
// and W2 at 10,000 round trips, of clai daemon serving suggestions from a
// database of 1,000,000 events, and of clai dashboard serving 20 running
// sessions, each beside its bound, and what each process holds besides its
// peak: the pages of the binary (file) and its own (anonymous).
type memoryBench struct {
	clai, dir, flood, roundtrip, prompter string
	// startFloor is W0's floor, a small Go program that opens a terminal,
	// answers a prompt and waits: the scale of the floor's memory.
	startFloor string
	sb         suggestBench
}

// memRow is one line of WM.
type memRow struct {
	what  string
	bound float64
	// peakKiB is the process's peak resident set over the runs.
	peakKiB int64
	// split is how the resident set of one process divided at its peak,
	// when known: "file X, anon Y".
	split string
}

// benchMemory runs WM, runs times each run of clai run, and prints its table.
func (m memoryBench) benchMemory(runs int) error {
	fmt.Printf("\nWM peak resident memory beside its bound (clai run: the most over %d runs):\n", runs)
	var rows []memRow
	w1 := m.playbook("wm-w1.yaml", fmt.Sprintf("version: 1\nname: wm-w1\nspawn: {command: [%q, -bytes, 16MiB]}\nsettings: {min_send_interval: 0s}\n"+
		"rules:\n  - {name: continue, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n", m.flood))
	w2 := m.playbook("wm-w2.yaml", fmt.Sprintf("version: 1\nname: wm-w2\nspawn: {command: [%q, -n, \"10000\"]}\nsettings: {min_send_interval: 0s}\n"+
		"rules:\n  - {name: code, match: {regex: 'Enter code (?P<code>\\d+) \\[\\d+\\]: $'}, line: \"{{ match.code }}\", limit: 1000000}\n", m.roundtrip))
	for _, r := range []struct{ what, playbook string }{
		{"clai run, W1 at 16 MiB (a flood, then a prompt)", w1},
		{"clai run, W2 at 10,000 round trips", w2},
	} {
		row := memRow{what: r.what, bound: boundRun}
		for range runs {
			mine, err := measureSplit(m.clai, "run", "-q", "--log", os.DevNull, r.playbook)
			if err != nil {
				return fmt.Errorf("WM %s: %w", r.what, err)
			}
			if mine.peakKiB > row.peakKiB {
				row.peakKiB, row.split = mine.peakKiB, mine.split
			}
		}
		rows = append(rows, row)
	}
	daemon, err := m.daemonPeak(runs)
	if err != nil {
		return fmt.Errorf("WM daemon: %w", err)
	}
	dash, err := m.dashboardPeak(20)
	if err != nil {
		return fmt.Errorf("WM dashboard: %w", err)
	}
	rows = append(rows, daemon, dash)
	const prompt = "Continue? [y/n] "
	floor, err := measureSplit(m.startFloor, prompt, "y", m.prompter, "-q", prompt)
	if err != nil {
		return fmt.Errorf("WM floor: %w", err)
	}
	for _, r := range rows {
		verdict := "ok"
		if float64(r.peakKiB)/1024 > r.bound {
			verdict = "OVER"
		}
		fmt.Printf("  %-66s peak %5.1f MiB  ≤%3.0f MiB %-4s  (%s)\n", r.what, float64(r.peakKiB)/1024, r.bound, verdict, r.split)
	}
	fmt.Printf("  %-66s peak %5.1f MiB             (%s)\n", "the floor: a small Go program that answers a prompt in a terminal", float64(floor.peakKiB)/1024, floor.split)
	return nil
}

// playbook writes a playbook of WM's and returns its path.
func (m memoryBench) playbook(name, yaml string) string {
	p := filepath.Join(m.dir, name)
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		panic(err)
	}
	return p
}

// splitMeasurement is a measurement with how the resident set divided at
// the sample of the highest one.
type splitMeasurement struct {
	measurement
	split string
}

// measureSplit is measure, which also samples how the resident set divides
// between the binary's pages and the process's own.
func measureSplit(name string, args ...string) (splitMeasurement, error) {
	cmd := exec.Command(name, args...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		return splitMeasurement{}, err
	}
	done := make(chan struct{})
	sampled := make(chan splitMeasurement, 1)
	go func() {
		var best splitMeasurement
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			s := readStatus(cmd.Process.Pid)
			best.peakKiB = max(best.peakKiB, s.hwm)
			if s.rss > 0 && s.rss >= s.hwm-4 {
				best.split = s.split()
			}
			select {
			case <-done:
				sampled <- best
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	m := <-sampled
	if err != nil {
		return m, fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return m, nil
}

// procStatus is what WM reads of /proc/PID/status, in KiB.
type procStatus struct {
	hwm, rss, anon, file int64
}

// split says how the resident set divides.
func (s procStatus) split() string {
	return fmt.Sprintf("at its peak: binary and libraries %.1f MiB, anonymous %.1f MiB", float64(s.file)/1024, float64(s.anon)/1024)
}

// readStatus reads a process's resident set figures, or zeros.
func readStatus(pid int) procStatus {
	var s procStatus
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		key, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		switch key {
		case "VmHWM":
			s.hwm = n
		case "VmRSS":
			s.rss = n
		case "RssAnon":
			s.anon = n
		case "RssFile":
			s.file = n
		}
	}
	return s
}

// daemonPeak builds a database of 1,000,000 events, starts a daemon on it,
// asks it for suggestions 20×runs times as clai suggest does, and reads the
// daemon's peak resident set.
func (m memoryBench) daemonPeak(runs int) (memRow, error) {
	const events = 1_000_000
	row := memRow{what: fmt.Sprintf("clai daemon, %d events, serving clai suggest", events), bound: boundDaemon}
	dir, err := os.MkdirTemp(m.dir, "wm-daemon-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	if err := gitInit(repo); err != nil {
		return row, err
	}
	if _, err := buildDatabase(filepath.Join(dir, "state", "clai", "suggest.db"), events, repo); err != nil {
		return row, err
	}
	d, err := m.sb.startDaemon(dir)
	if err != nil {
		return row, err
	}
	defer d.stop()
	if _, err := m.sb.suggestCalls(dir, repo, 20*runs); err != nil {
		return row, err
	}
	s := readStatus(d.cmd.Process.Pid)
	row.peakKiB = s.hwm
	row.split = "at the end: " + strings.TrimPrefix(s.split(), "at its peak: ")
	return row, nil
}

// dashboardPeak starts n headless clai run --remote of a program that draws
// a clock while it waits for an answer nothing gives, then clai dashboard,
// loads its page and follows its event stream from two pages until every
// session is in it, and a few seconds of the clocks' redraws after; it reads
// the dashboard's peak resident set.
func (m memoryBench) dashboardPeak(n int) (memRow, error) {
	row := memRow{what: fmt.Sprintf("clai dashboard, %d sessions, 2 pages following them", n), bound: boundDashboard}
	dir, err := os.MkdirTemp(m.dir, "wm-dash-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var runs []*exec.Cmd
	defer func() {
		cancel()
		for _, c := range runs {
			_ = c.Wait()
		}
	}()
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("wm-dash-%02d", i)
		p := m.playbook(filepath.Join(filepath.Base(dir), names[i]+".yaml"), fmt.Sprintf("version: 1\nname: %s\n"+
			"spawn: {command: [%q, -tick, 200ms, -q, \"Name: \"]}\nsettings: {min_send_interval: 0s}\ntimeouts: {prompt: 10m}\n"+
			"rules:\n  - {name: never, match: {regex: 'never asked'}, line: \"no\"}\n", names[i], m.prompter))
		cmd := exec.CommandContext(ctx, m.clai, "run", "--remote", "-q", "--log", os.DevNull, p)
		stopGently(cmd)
		if err := cmd.Start(); err != nil {
			return row, err
		}
		runs = append(runs, cmd)
	}
	dash := exec.CommandContext(ctx, m.clai, "dashboard")
	stopGently(dash)
	out, err := dash.StdoutPipe()
	if err != nil {
		return row, err
	}
	if err := dash.Start(); err != nil {
		return row, err
	}
	runs = append(runs, dash)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return row, fmt.Errorf("clai dashboard printed no URL: %w", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	page, err := url.Parse(strings.TrimSpace(strings.TrimPrefix(line, "clai dashboard: ")))
	if err != nil {
		return row, err
	}
	token := page.Query().Get("token")
	base := page.Scheme + "://" + page.Host
	get := func(path string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set(tokenHeader, token)
		return http.DefaultClient.Do(req)
	}
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		resp, err := get(path)
		if err != nil {
			return row, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return row, fmt.Errorf("GET %s: %s", path, resp.Status)
		}
	}
	follow := make(chan error, 2)
	for range 2 {
		go func() { follow <- followAll(get, names) }()
	}
	for range 2 {
		if err := <-follow; err != nil {
			return row, err
		}
	}
	s := readStatus(dash.Process.Pid)
	row.peakKiB = s.hwm
	row.split = "at the end: " + strings.TrimPrefix(s.split(), "at its peak: ")
	return row, nil
}

// tokenHeader is the header the dashboard takes its token in.
const tokenHeader = "X-Clai-Token"

// followAll reads the dashboard's event stream until every name is in it,
// then 3 s of its updates more.
func followAll(get func(string) (*http.Response, error), names []string) error {
	resp, err := get("/api/events")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /api/events: %s", resp.Status)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var until time.Time
	for sc.Scan() {
		for _, name := range names {
			if !seen[name] && strings.Contains(sc.Text(), `"`+name+`"`) {
				seen[name] = true
			}
		}
		if until.IsZero() && len(seen) == len(names) {
			until = time.Now().Add(3 * time.Second)
		}
		if !until.IsZero() && time.Now().After(until) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("the event stream: %w", err)
	}
	return errors.New("the event stream ended before every session was in it")
}
