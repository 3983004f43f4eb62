package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "modernc.org/sqlite"

	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// suggestBench holds what the suggestion workloads share: clai, and a
// folder of their own.
type suggestBench struct {
	// hook is clai-hook, the small client, for W0 and W10.
	clai, hook, dir string
}

// daemonProc is a clai daemon the bench started.
type daemonProc struct {
	cmd    *exec.Cmd
	socket string
	exited chan error
	stderr *strings.Builder
	mu     sync.Mutex
}

// daemonEnv is the environment of a daemon, and of the clai suggest that asks
// it, whose socket and database are in dir.
func daemonEnv(dir string) []string {
	return append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), hookproto.SocketEnv+"="+filepath.Join(dir, "daemon.sock"))
}

// spawnDaemon starts clai daemon with its files in dir; serving receives
// once it says it serves.
func (b suggestBench) spawnDaemon(dir string) (*daemonProc, <-chan struct{}, error) {
	d := &daemonProc{cmd: exec.Command(b.clai, "daemon"), socket: filepath.Join(dir, "daemon.sock"), exited: make(chan error, 1), stderr: &strings.Builder{}}
	d.cmd.Env = daemonEnv(dir)
	pipe, err := d.cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := d.cmd.Start(); err != nil {
		return nil, nil, err
	}
	serving := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		said := false
		for sc.Scan() {
			d.mu.Lock()
			d.stderr.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			if !said && strings.Contains(sc.Text(), "serving on") {
				said = true
				close(serving)
			}
		}
	}()
	// Wait closes the pipe: it waits until the output is read whole.
	go func() {
		<-read
		d.exited <- d.cmd.Wait()
	}()
	return d, serving, nil
}

// startDaemon starts clai daemon with its files in dir and waits until it
// serves.
func (b suggestBench) startDaemon(dir string) (*daemonProc, error) {
	d, serving, err := b.spawnDaemon(dir)
	if err != nil {
		return nil, err
	}
	select {
	case <-serving:
		return d, nil
	case err := <-d.exited:
		return nil, fmt.Errorf("clai daemon ended (%v) before it served:\n%s", err, d.output())
	case <-time.After(2 * time.Minute):
		d.stop()
		return nil, errors.New("clai daemon did not serve within 2 minutes")
	}
}

func (d *daemonProc) output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stderr.String()
}

// stop ends the daemon with SIGTERM and waits for it.
func (d *daemonProc) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(time.Minute):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}

// history makes n command events as a user's shells would send them: a few
// hundred sessions over a few dozen repositories, each session working in
// one repository a while, the commands drawn from a vocabulary of a few
// thousand with a skew towards the common ones, and a time every few seconds
// over the last weeks.
type history struct {
	rng   *rand.Rand
	vocab []string
	repos []string
	// understood caches each command of the vocabulary normalised.
	understood map[string]normalize.Command
	// The history so far: how many events, the time of the last, its
	// session and folder; step is the time between two events.
	made         int
	at           time.Time
	step         time.Duration
	session, cwd string
}

// newHistory is a history of total events over the last sixty days.
func newHistory(seed uint64, repos, total int) *history {
	span := 60 * 24 * time.Hour
	h := &history{rng: rand.New(rand.NewPCG(seed, 1)), understood: map[string]normalize.Command{},
		at: time.Now().Add(-span), step: span / time.Duration(total+1)}
	for i := range repos {
		h.repos = append(h.repos, fmt.Sprintf("/home/me/src/project-%02d", i))
	}
	base := []string{"git status", "git pull", "git push", "git diff", "git log --oneline", "make test", "make lint", "make build",
		"go test ./...", "go build ./...", "ls -la", "npm install", "npm run dev", "npm test", "docker compose up -d", "kubectl get pods"}
	h.vocab = append(h.vocab, base...)
	for i := range 3000 {
		switch i % 6 {
		case 0:
			h.vocab = append(h.vocab, fmt.Sprintf("git checkout feature/%d", i))
		case 1:
			h.vocab = append(h.vocab, fmt.Sprintf("vim src/pkg%d/file%d.go", i%40, i))
		case 2:
			h.vocab = append(h.vocab, fmt.Sprintf("go test -run TestCase%d ./pkg%d/", i, i%40))
		case 3:
			h.vocab = append(h.vocab, fmt.Sprintf("git commit -m 'change %d'", i))
		case 4:
			h.vocab = append(h.vocab, fmt.Sprintf("curl -s https://api.example.com/v1/items/%d", i))
		default:
			h.vocab = append(h.vocab, fmt.Sprintf("make target-%d", i%200))
		}
	}
	return h
}

// command draws a command: the common ones most often.
func (h *history) command() string {
	if h.rng.IntN(3) > 0 {
		return h.vocab[h.rng.IntN(16)]
	}
	// A skew: the square of a uniform draw favours the start.
	u := h.rng.Float64()
	return h.vocab[int(u*u*float64(len(h.vocab)))]
}

// events makes the next n events, understood as the daemon would
// understand them, with the repository of each folder given by key.
func (h *history) events(n int, key func(cwd string) string) []store.Event {
	out := make([]store.Event, 0, n)
	for range n {
		if h.made%200 == 0 {
			h.session = fmt.Sprintf("d-%016x", h.rng.Uint64())
			h.cwd = h.repos[h.rng.IntN(len(h.repos))]
		}
		line := h.command()
		c, ok := h.understood[line]
		if !ok {
			c = normalize.Normalize(line)
			h.understood[line] = c
		}
		h.at = h.at.Add(h.step)
		out = append(out, store.Event{Kind: store.Command, Session: h.session, Shell: "bash", PID: 1000 + h.made/200, At: h.at, Cwd: h.cwd,
			RepoKey: key(h.cwd), Cmd: line, Template: c.Template, Args: c.Args, Tool: c.Tool, Duration: 20 * time.Millisecond})
		h.made++
	}
	return out
}

// benchIngest is W9: a burst of n command events by 16 shells at once into
// a running daemon; the time from the first event to the last committed.
// The events come as the shell hooks write them, appended to each shell's
// spool file, and as clai-hook ingest sends them, on a connection each. The
// burst runs in a git repository, where each git command makes the daemon
// ask git again about the folder, and in a folder of none, where git is
// asked once in two seconds: the cost of the store and the transport alone.
func (b suggestBench) benchIngest(runs, n int) error {
	fmt.Printf("\nW9 a burst of %d command events into clai daemon, 16 senders (%d runs after one not counted):\n", n, runs)
	for _, spool := range []bool{true, false} {
		for _, inRepo := range []bool{true, false} {
			var rates []float64
			var batches []int64
			for range runs + 1 {
				rate, nb, err := b.ingestRun(n, inRepo, spool)
				if err != nil {
					return fmt.Errorf("W9: %w", err)
				}
				rates, batches = append(rates, rate), append(batches, nb)
			}
			rates, batches = rates[1:], batches[1:] // the first run warms up
			how := "spool (the hooks)"
			if !spool {
				how = "socket, a connection an event (clai-hook ingest)"
			}
			where := "in a git repository (a third are git commands)"
			if !inRepo {
				where = "in a folder of no repository"
			}
			fmt.Printf("  %-50s %-48s %6.0f events/s median (%.0f–%.0f), committed in %d transactions (a batch is up to 500 events of one spool file or one request)\n",
				how, where, median(rates), slices.Min(rates), slices.Max(rates), median(batches))
		}
	}
	return nil
}

// ingestRun starts a daemon, sends it the burst from a repository or not, by
// the spool or the socket, and stops it.
func (b suggestBench) ingestRun(n int, inRepo, spool bool) (float64, int64, error) {
	dir, err := os.MkdirTemp(b.dir, "w9-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	cwd := filepath.Join(dir, "repo")
	if inRepo {
		if err := gitInit(cwd); err != nil {
			return 0, 0, err
		}
	} else if err := os.Mkdir(cwd, 0o755); err != nil {
		return 0, 0, err
	}
	d, err := b.startDaemon(dir)
	if err != nil {
		return 0, 0, err
	}
	defer d.stop()
	return b.burst(d.socket, cwd, n, spool)
}

// burst sends n events to the daemon at socket, by its spool or its socket,
// and waits until they are committed; it returns the events a second and the
// transactions they took.
func (b suggestBench) burst(socket, repo string, n int, spool bool) (float64, int64, error) {
	h := newHistory(7, 1, n)
	lines := make([][]byte, n)
	for i, e := range h.events(n, func(string) string { return "" }) {
		var line []byte
		var err error
		if spool {
			line, err = hookproto.AppendSpoolCommand(nil, hookproto.Event{Shell: "zsh", Session: fmt.Sprintf("d-%016x", i%16), PID: e.PID,
				TSMillis: time.Now().UnixMilli(), Cwd: repo, Cmd: e.Cmd, DurationMS: 20})
		} else {
			line, err = json.Marshal(map[string]any{"v": 1, "type": "command", "session": e.Session, "shell": "bash", "pid": e.PID,
				"ts_ms": time.Now().UnixMilli(), "cwd": repo, "cmd": e.Cmd, "exit": 0, "duration_ms": 20})
			line = append(line, '\n')
		}
		if err != nil {
			return 0, 0, err
		}
		lines[i] = line
	}
	c := daemon.NewClient(socket)
	ctx := context.Background()
	before, err := c.Health(ctx)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for s := range 16 {
		wg.Go(func() {
			for i := s; i < n; i += 16 {
				var err error
				if spool {
					err = appendSpool(filepath.Dir(socket), fmt.Sprintf("d-%016x", s), lines[i])
				} else {
					_, _, err = c.Ingest(ctx, lines[i])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	// A debug page answers once what was queued before it is committed.
	var scores struct{ Scores []json.RawMessage }
	if err := c.Get(ctx, "/debug/scores?limit=1", &scores); err != nil {
		return 0, 0, err
	}
	elapsed := time.Since(start)
	after, err := c.Health(ctx)
	if err != nil {
		return 0, 0, err
	}
	if got := after.Accepted - before.Accepted; got != int64(n) || after.Dropped > 0 || after.Failed > 0 {
		return 0, 0, fmt.Errorf("the daemon took %d of %d events (%d dropped, %d failed)", got, n, after.Dropped, after.Failed)
	}
	return float64(n) / elapsed.Seconds(), after.Batches - before.Batches, nil
}

// appendSpool appends a record to the spool file of session in the runtime
// folder dir, opening and closing it as a hook does.
func appendSpool(dir, session string, record []byte) error {
	path, err := hookproto.SpoolFile(dir, session)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(record)
	return errors.Join(err, f.Close())
}

// gitInit makes a git repository at dir with a remote and a Makefile.
func gitInit(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://example.com/team/app.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	return os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\t@true\nlint:\n\t@true\n"), 0o644)
}

// benchSuggestLatency is W10: clai suggest, a whole process as a user runs
// it in a repository with a Makefile, against a daemon whose database holds
// n events (built here in bulk), for each n; the baseline is clai version,
// the same process doing nothing.
func (b suggestBench) benchSuggestLatency(runs int, sizes []int) error {
	fmt.Printf("\nW10 clai suggest (a whole process) against a daemon with N events in its database, %d calls each after 5 not counted:\n", 20*runs)
	for _, n := range sizes {
		dir, err := os.MkdirTemp(b.dir, "w10-")
		if err != nil {
			return err
		}
		repo := filepath.Join(dir, "repo")
		if err := gitInit(repo); err != nil {
			return err
		}
		built, err := buildDatabase(filepath.Join(dir, "state", "clai", "suggest.db"), n, repo)
		if err != nil {
			return err
		}
		d, err := b.startDaemon(dir)
		if err != nil {
			return err
		}
		res, err := b.suggestCalls(dir, repo, 20*runs)
		d.stop()
		_ = os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("W10 at %d events: %w", n, err)
		}
		ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3) }
		fmt.Printf("  %9d events (built in %5s)  clai suggest p50 %s  p99 %s   clai-hook suggest p50 %s  p99 %s   clai version p50 %s  p99 %s   ratio of p50s %.2f×   %d suggestions\n",
			n, built.Round(time.Second), ms(percentile(res.suggest, 0.5)), ms(percentile(res.suggest, 0.99)),
			ms(percentile(res.hook, 0.5)), ms(percentile(res.hook, 0.99)),
			ms(percentile(res.version, 0.5)), ms(percentile(res.version, 0.99)),
			float64(percentile(res.suggest, 0.5))/float64(percentile(res.version, 0.5)), res.count)
	}
	return nil
}

// buildDatabase makes the database at path with n events of a user's
// history, in bulk: the events in large transactions, then what is learnt
// from them in one rebuild. One of the forty repositories of the history is
// the real one at repo, filed under the key the daemon finds for it.
func buildDatabase(path string, n int, repo string) (time.Duration, error) {
	start := time.Now()
	ctx := context.Background()
	s, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	h := newHistory(42, 40, n)
	h.repos[0] = repo
	real, err := gitctx.NewResolver().Lookup(ctx, repo, false)
	if err != nil || real.RepoKey == "" {
		return 0, fmt.Errorf("the key of %s: %v", repo, err)
	}
	key := func(cwd string) string {
		if cwd == repo {
			return real.RepoKey
		}
		return "bench|" + cwd
	}
	for made := 0; made < n; made += 50_000 {
		if err := s.Import(ctx, h.events(min(50_000, n-made), key)); err != nil {
			return 0, err
		}
	}
	if err := s.RebuildAggregates(ctx); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// suggestResult is what W10 measured at one size.
type suggestResult struct {
	suggest, hook, version []time.Duration
	count                  int
}

// suggestCalls runs clai suggest and clai version calls times each, in turn,
// after five of each not counted.
func (b suggestBench) suggestCalls(dir, repo string, calls int) (suggestResult, error) {
	var res suggestResult
	env := append(daemonEnv(dir), "CLAI_SESSION_ID=bench")
	run := func(args ...string) (time.Duration, []byte, error) {
		bin := b.clai
		if args[0] == "clai-hook" {
			bin, args = b.hook, args[1:]
		}
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, repo
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return 0, nil, fmt.Errorf("clai %s: %w\n%s", strings.Join(args, " "), err, ee.Stderr)
			}
			return 0, nil, err
		}
		return time.Since(start), out, nil
	}
	for i := range calls + 5 {
		took, out, err := run("suggest", "--json", "--last", "git pull")
		if err != nil {
			return res, err
		}
		var reply daemon.SuggestReply
		if err := json.Unmarshal(out, &reply); err != nil {
			return res, fmt.Errorf("clai suggest --json: %w", err)
		}
		res.count = len(reply.Suggestions)
		if res.count == 0 {
			return res, errors.New("clai suggest suggested nothing")
		}
		ht, hout, err := run("clai-hook", "suggest", "-json")
		if err != nil {
			return res, err
		}
		if err := json.Unmarshal(hout, &reply); err != nil || len(reply.Suggestions) == 0 {
			return res, fmt.Errorf("clai-hook suggest -json: %v\n%s", err, hout)
		}
		vt, _, err := run("version")
		if err != nil {
			return res, err
		}
		if i >= 5 {
			res.suggest, res.hook, res.version = append(res.suggest, took), append(res.hook, ht), append(res.version, vt)
		}
	}
	return res, nil
}

// benchMigrationRace is W11: ten clai daemons started at once on a new
// database; exactly one must migrate it and serve, the nine others exit
// saying one runs. It reports the time until the one serves.
func (b suggestBench) benchMigrationRace(runs int) error {
	const n = 10
	var walls []time.Duration
	for range runs {
		dir, err := os.MkdirTemp(b.dir, "w11-")
		if err != nil {
			return err
		}
		wall, err := b.race(dir, n)
		_ = os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("W11: %w", err)
		}
		walls = append(walls, wall)
	}
	fmt.Printf("\nW11 %d clai daemons started at once on a new database (%d runs): each run, one migrated and served and %d exited \"daemon already running\";\n"+
		"  start to serving median %s (%s–%s)\n", n, runs, n-1, median(walls).Round(time.Millisecond), slices.Min(walls).Round(time.Millisecond), slices.Max(walls).Round(time.Millisecond))
	return nil
}

// race starts n daemons in dir at once and checks that one serves, the others
// are refused, and the database was migrated once.
func (b suggestBench) race(dir string, n int) (time.Duration, error) {
	start := time.Now()
	type started struct {
		d       *daemonProc
		serving <-chan struct{}
	}
	var all []started
	defer func() {
		for _, s := range all {
			if s.d.cmd.ProcessState == nil {
				s.d.stop()
			}
		}
	}()
	for range n {
		d, serving, err := b.spawnDaemon(dir)
		if err != nil {
			return 0, err
		}
		all = append(all, started{d, serving})
	}
	var served, refused int
	var wall time.Duration
	for _, s := range all {
		select {
		case <-s.serving:
			served++
			wall = time.Since(start)
		case err := <-s.d.exited:
			s.d.exited <- err
			if !strings.Contains(s.d.output(), "daemon already running") {
				return 0, fmt.Errorf("a daemon ended (%v):\n%s", err, s.d.output())
			}
			refused++
		case <-time.After(2 * time.Minute):
			return 0, errors.New("a daemon neither served nor ended within 2 minutes")
		}
	}
	if served != 1 || refused != n-1 {
		return 0, fmt.Errorf("%d daemons served and %d were refused, want 1 and %d", served, refused, n-1)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "state", "clai", "suggest.db"))
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&rows); err != nil {
		return 0, err
	}
	if rows != store.SchemaVersion() {
		return 0, fmt.Errorf("schema_migrations holds %d rows, want %d: a version was applied twice or not at all", rows, store.SchemaVersion())
	}
	return wall, nil
}
