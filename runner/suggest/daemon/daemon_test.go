package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/fakeclock"
	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// understander is the tests' Understander: a command is its own template
// but for a message after -m and a last word with a slash, a path; folders under /repo/NAME are repository NAME,
// and each repository has the tasks of tasks.
type understander struct {
	mu    sync.Mutex
	tasks map[string][]store.Task
	reads int
	// trees are the work trees by root; a root not in it cannot be told.
	// treeReads counts the reads.
	trees     map[string]gitctx.Status
	treeReads int
}

func (u *understander) WorkTree(_ context.Context, root string, _ bool) (gitctx.Status, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.treeReads++
	st, ok := u.trees[root]
	return st, ok
}

// setTree makes root's work tree st.
func (u *understander) setTree(root string, st gitctx.Status) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.trees == nil {
		u.trees = map[string]gitctx.Status{}
	}
	u.trees[root] = st
}

func (u *understander) Command(line string) normalize.Command {
	if i := strings.Index(line, " -m "); i >= 0 {
		return normalize.Command{Template: line[:i] + " -m <msg>", Args: []string{line[i+4:]}}
	}
	if i := strings.LastIndexByte(line, ' '); i >= 0 && strings.Contains(line[i:], "/") {
		return normalize.Command{Template: line[:i] + " <path>", Args: []string{line[i+1:]}}
	}
	return normalize.Command{Template: line}
}

func (u *understander) Repo(_ context.Context, cwd string, _ bool) (string, string) {
	rest, ok := strings.CutPrefix(cwd, "/repo/")
	if !ok {
		return "", ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return "key-" + name, "/repo/" + name
}

func (u *understander) Tasks(_ context.Context, root string) ([]store.Task, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.reads++
	return u.tasks[root], nil
}

// recorder is the tests' Ranker: it keeps the evidence it was given and
// suggests the repository's transitions, then the global ones.
type recorder struct {
	mu   sync.Mutex
	last daemon.Evidence
}

func (r *recorder) Rank(ev daemon.Evidence, limit int) []daemon.Suggestion {
	r.mu.Lock()
	r.last = ev
	r.mu.Unlock()
	var out []daemon.Suggestion
	for _, t := range append(slices.Clone(ev.RepoTransitions), ev.GlobalTransitions...) {
		out = append(out, daemon.Suggestion{Command: t.LastCmd, Template: t.Next, Score: float64(t.Count), Reasons: []string{fmt.Sprintf("after %s (%d×)", ev.Prev, t.Count)}})
	}
	return out[:min(limit, len(out))]
}

func (r *recorder) evidence() daemon.Evidence {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// logLines is a daemon's log as a channel of lines.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	for line := range strings.SplitSeq(strings.TrimSuffix(string(p), "\n"), "\n") {
		l <- line
	}
	return len(p), nil
}

// waitFor returns the first line of the log that contains s.
func (l logLines) waitFor(t *testing.T, s string) string {
	t.Helper()
	for {
		select {
		case line := <-l:
			if strings.Contains(line, s) {
				return line
			}
		case <-t.Context().Done():
			t.Fatalf("the daemon never logged %q", s)
		}
	}
}

// running is a daemon run by a test.
type running struct {
	cfg    daemon.Config
	log    logLines
	client *daemon.Client
	u      *understander
	r      *recorder
	done   chan error
	cancel context.CancelFunc
}

// config is a daemon's config in a folder of the test's own.
func config(t testing.TB) daemon.Config {
	dir := t.TempDir()
	return daemon.Config{
		Socket:       filepath.Join(dir, "rt", "daemon.sock"),
		Database:     filepath.Join(dir, "state", "suggest.db"),
		Understander: &understander{tasks: map[string][]store.Task{}},
		Ranker:       &recorder{},
	}
}

// start runs a daemon of cfg until the test ends, once it serves.
func start(t testing.TB, cfg daemon.Config) *running {
	t.Helper()
	log := make(logLines, 1000)
	cfg.Log = log
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cfg: cfg, log: log, client: daemon.NewClient(cfg.Socket), done: make(chan error, 1), cancel: cancel}
	r.u, _ = cfg.Understander.(*understander)
	r.r, _ = cfg.Ranker.(*recorder)
	go func() { r.done <- daemon.Run(ctx, cfg) }()
	t.Cleanup(func() {
		if err := r.stop(); err != nil {
			t.Errorf("daemon: %v", err)
		}
	})
	select {
	case <-waitLine(log, "serving on"):
	case err := <-r.done:
		t.Fatalf("the daemon ended before it served: %v", err)
	}
	return r
}

func waitLine(l logLines, s string) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		for line := range l {
			if strings.Contains(line, s) {
				close(c)
				return
			}
		}
	}()
	return c
}

func (r *running) stop() error {
	r.cancel()
	err, ok := <-r.done
	if !ok {
		return nil
	}
	close(r.done)
	return err
}

// event is one NDJSON line of a command.
func event(session, cwd, cmd string, at time.Time) string {
	return fmt.Sprintf(`{"v":1,"type":"command","session":%q,"shell":"bash","pid":1,"ts_ms":%d,"cwd":%q,"cmd":%q,"exit":0,"duration_ms":3}`+"\n",
		session, at.UnixMilli(), cwd, cmd)
}

func (r *running) ingest(t *testing.T, lines ...string) (int, int) {
	t.Helper()
	a, s, err := r.client.Ingest(t.Context(), []byte(strings.Join(lines, "")))
	if err != nil {
		t.Fatal(err)
	}
	return a, s
}

func TestIngestThenSuggestFromWhatWasLearnt(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Understander = &understander{tasks: map[string][]store.Task{"/repo/app": {{Source: "Makefile", Name: "test", Command: "make test"}}}}
	d := start(t, cfg)
	now := time.Now()
	at := func(s int) time.Time { return now.Add(time.Duration(s) * time.Second) }
	accepted, skipped := d.ingest(t,
		event("a", "/repo/app", "git pull", at(0)),
		event("a", "/repo/app", "make test", at(1)),
		event("a", "/repo/app", "git commit -m 'one'", at(2)),
		event("a", "/repo/app", "git pull", at(3)),
		event("a", "/repo/app", "make test", at(4)),
		event("b", "/elsewhere", "git pull", at(5)),
		event("b", "/elsewhere", "ls", at(6)),
	)
	if accepted != 7 || skipped != 0 {
		t.Fatalf("ingest took %d, skipped %d; want 7, 0", accepted, skipped)
	}
	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "c", Cwd: "/repo/app/src", LastCmd: "git pull", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	ev := d.r.evidence()
	if ev.Prev != "git pull" || ev.RepoKey != "key-app" {
		t.Fatalf("evidence for %q in %q", ev.Prev, ev.RepoKey)
	}
	if len(ev.RepoTransitions) != 1 || ev.RepoTransitions[0].Next != "make test" || ev.RepoTransitions[0].Count != 2 {
		t.Fatalf("repo transitions %+v, want make test twice", ev.RepoTransitions)
	}
	if len(ev.GlobalTransitions) != 2 {
		t.Fatalf("global transitions %+v, want make test and ls", ev.GlobalTransitions)
	}
	if len(ev.Tasks) != 1 || ev.Tasks[0].Command != "make test" {
		t.Fatalf("tasks %+v", ev.Tasks)
	}
	if len(ev.RepoCommands) != 3 || ev.RepoCommands[0].Count != 2 {
		t.Fatalf("repo commands %+v", ev.RepoCommands)
	}
	if ev.GlobalCommands != nil {
		t.Fatalf("global commands %+v gathered in a repository, where the repository's stand for them", ev.GlobalCommands)
	}
	if len(reply.Suggestions) != 3 || reply.Suggestions[0].Command != "make test" {
		t.Fatalf("suggestions %+v", reply.Suggestions)
	}
	// Without the last command, the session's own is taken.
	if _, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "a", Cwd: "/repo/app"}); err != nil {
		t.Fatal(err)
	}
	if ev := d.r.evidence(); ev.Prev != "make test" || ev.PrevCmd != "" {
		t.Fatalf("the last command of session a: %q", ev.Prev)
	}
	// Outside a repository, the commands frequent anywhere are gathered.
	if _, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "b", Cwd: "/elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if ev := d.r.evidence(); ev.RepoKey != "" || len(ev.GlobalCommands) != 4 || ev.GlobalCommands[0].Template != "git pull" {
		t.Fatalf("evidence outside a repository: repo %q, global commands %+v", ev.RepoKey, ev.GlobalCommands)
	}
	var tasks struct{ Tasks []store.Task }
	if err := d.client.Get(t.Context(), "/debug/tasks?cwd=/repo/app", &tasks); err != nil {
		t.Fatal(err)
	}
	if len(tasks.Tasks) != 1 || tasks.Tasks[0].Name != "test" {
		t.Fatalf("/debug/tasks %+v", tasks)
	}
	var trans struct {
		Scope       string
		Transitions []struct {
			Prev, Next string
			Count      int
		}
	}
	if err := d.client.Get(t.Context(), "/debug/transitions?repo=key-app", &trans); err != nil {
		t.Fatal(err)
	}
	if trans.Scope != "key-app" || len(trans.Transitions) != 3 || trans.Transitions[0].Count != 2 {
		t.Fatalf("/debug/transitions %+v", trans)
	}
	var scores struct {
		Scores []struct {
			Template string
			LastCmd  string `json:"last_cmd"`
		}
	}
	if err := d.client.Get(t.Context(), "/debug/scores?cwd=/repo/app", &scores); err != nil {
		t.Fatal(err)
	}
	if len(scores.Scores) != 3 {
		t.Fatalf("/debug/scores %+v", scores)
	}
}

func TestIngestSkipsAndCountsWhatItCannotTake(t *testing.T) {
	t.Parallel()
	d := start(t, config(t))
	now := time.Now()
	long := event("a", "/repo/x", "echo "+strings.Repeat("x", 256<<10), now)
	accepted, skipped := d.ingest(t,
		event("a", "/repo/x", "make", now),
		long,
		"not json\n",
		`{"v":2,"type":"command","session":"a","cmd":"from the future"}`+"\n",
		`{"v":1,"type":"command","session":"a","cmd":"make lint","future_field":[1,2]}`+"\r\n",
		"\n",
		event("a", "/repo/x", "make test", now.Add(time.Second)),
		// A shell with no session id is taken under its process id.
		`{"v":1,"type":"command","pid":77,"cmd":"make docs"}`+"\n",
	)
	if accepted != 4 || skipped != 3 {
		t.Fatalf("ingest took %d, skipped %d; want 4, 3", accepted, skipped)
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !h.OK || h.LinesTooLong != 1 || h.LinesBad != 1 || h.LinesNewer != 1 || h.Accepted != 4 || h.Schema != store.SchemaVersion() {
		t.Fatalf("health %+v", h)
	}
	// A line just within the bound is taken.
	line := event("a", "/repo/x", "echo ", now)
	fits := event("a", "/repo/x", "echo "+strings.Repeat("y", 256<<10-len(line)+1), now)
	if len(fits) != 256<<10+1 {
		t.Fatalf("line of %d bytes", len(fits))
	}
	if accepted, _ := d.ingest(t, fits); accepted != 1 {
		t.Fatal("a line of 256 KiB was not taken")
	}
}

func TestSessionStartGetsAnIDInItsSessionFile(t *testing.T) {
	t.Parallel()
	d := start(t, config(t))
	accepted, _ := d.ingest(t, `{"v":1,"type":"session_start","session":"l-4242-00ff","shell":"zsh","pid":4242,"ts_ms":1,"cwd":"/"}`+"\n")
	if accepted != 1 {
		t.Fatal("session_start not taken")
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(d.cfg.Socket), "shell-sessions", "4242"))
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(data))
	if !strings.HasPrefix(id, "d-") || len(id) != 18 {
		t.Fatalf("session file holds %q, want d- and 16 hex digits", id)
	}
	// The hook's client reads it as the shell's session id.
	if got, ok := hookproto.ReadSessionFile(filepath.Dir(d.cfg.Socket), 4242, time.Now()); !ok || got != id {
		t.Fatalf("the hook reads %q, %v; want %q", got, ok, id)
	}
}

func TestASecondDaemonSaysOneIsAlreadyRunning(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	first := start(t, cfg)
	second := cfg
	second.Log = io.Discard
	err := daemon.Run(t.Context(), second)
	if !errors.Is(err, daemon.ErrAlreadyRunning) {
		t.Fatalf("a second daemon: %v, want ErrAlreadyRunning", err)
	}
	if want := fmt.Sprintf("daemon already running as process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("%q does not say %q", err, want)
	}
	// The first one still serves.
	if _, err := first.client.Health(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestAStaleSocketIsReplaced(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	if err := os.MkdirAll(filepath.Dir(cfg.Socket), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = ln.Close()
	if _, err := daemon.NewClient(cfg.Socket).Health(t.Context()); !errors.Is(err, daemon.ErrNotRunning) {
		t.Fatalf("health of a stale socket: %v, want ErrNotRunning", err)
	}
	d := start(t, cfg)
	if _, err := d.client.Health(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(cfg.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket is left after the daemon ended: %v", err)
	}
}

func TestADatabaseOfANewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	s, err := store.Open(t.Context(), cfg.Database, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	markNewer(t, cfg.Database)
	err = daemon.Run(t.Context(), cfg)
	if !errors.Is(err, store.ErrNewerSchema) {
		t.Fatalf("daemon on a newer database: %v", err)
	}
}

func TestEventsOlderThanTheRetentionArePurged(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	day := 24 * time.Hour
	clock := fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	cfg.Clock, cfg.Retention, cfg.PurgeEvery = clock, 30*day, time.Hour
	d := start(t, cfg)
	// The purge at start is done once the next one is set.
	clock.WaitFor(t, time.Hour)
	now := clock.Now()
	d.ingest(t,
		event("a", "/repo/app", "make old", now.Add(-20*day)),
		event("b", "/repo/app", "make new", now.Add(-5*day)),
	)
	// Ten days on, the first command is thirty days old: the next hourly
	// purge removes it.
	clock.Advance(10*day + time.Minute)
	if line := d.log.waitFor(t, "purged"); !strings.Contains(line, "purged 1 events, 1 sessions") {
		t.Fatalf("purge: %q", line)
	}
	var scores struct{ Scores []struct{ Template string } }
	if err := d.client.Get(t.Context(), "/debug/scores?repo=key-app", &scores); err != nil {
		t.Fatal(err)
	}
	if len(scores.Scores) != 1 || scores.Scores[0].Template != "make new" {
		t.Fatalf("scores after the purge %+v, want make new alone", scores.Scores)
	}
}

// markNewer makes the database at path one of a newer schema.
func markNewer(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	db := openRaw(t, path)
	if _, err := db.Exec(`INSERT INTO schema_migrations(version, applied_ms) VALUES (?, 0)`, store.SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
}

func TestTheScoreRankerSuggestsWithReasonsAndFillsTheLastArgs(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Understander = &understander{tasks: map[string][]store.Task{"/repo/app": {{Source: "Makefile", Name: "lint", Command: "make lint"}}}}
	ranker, err := daemon.NewRanker()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Ranker = ranker
	d := start(t, cfg)
	now := time.Now()
	var lines []string
	for i := range 3 {
		at := now.Add(time.Duration(i) * time.Minute)
		lines = append(lines,
			event("a", "/repo/app", "make test", at),
			event("a", "/repo/app", "go test ./pkg/x", at.Add(time.Second)),
		)
	}
	d.ingest(t, lines...)
	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "a", Cwd: "/repo/app", LastCmd: "make test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Suggestions) < 3 {
		t.Fatalf("suggestions %+v", reply.Suggestions)
	}
	top := reply.Suggestions[0]
	if top.Command != "go test ./pkg/x" || top.Template != "go test <path>" || top.Confidence <= 0 || top.Confidence >= 1 {
		t.Fatalf("top suggestion %+v, want go test with its last path", top)
	}
	if !strings.Contains(strings.Join(top.Reasons, "; "), "repo transition after `make test` (3×)") {
		t.Fatalf("reasons %q", top.Reasons)
	}
	var task *daemon.Suggestion
	for i := range reply.Suggestions {
		if reply.Suggestions[i].Command == "make lint" {
			task = &reply.Suggestions[i]
		}
	}
	if task == nil || !slices.Contains(task.Reasons, "project task (Makefile)") {
		t.Fatalf("no project task among %+v", reply.Suggestions)
	}
}

func TestASlowClientIsCutOffAndABodyIsBounded(t *testing.T) {
	t.Parallel()
	d := start(t, config(t))
	// A client that connects and says nothing is closed once the header
	// timeout passes; the deadline here only catches a daemon that waits
	// for ever.
	c, err := net.Dial("unix", d.cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("a silent client read %d bytes, %v; want the daemon to close it", n, err)
	}
	// A body over 16 MiB is refused.
	line := strings.Repeat("x", 300<<10) + "\n"
	_, _, err = d.client.Ingest(t.Context(), []byte(strings.Repeat(line, 60)))
	if err == nil || !strings.Contains(err.Error(), "413") {
		t.Fatalf("an ingest of 18 MiB: %v, want 413", err)
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.LinesTooLong == 0 || h.Accepted != 0 {
		t.Fatalf("health after the long body %+v", h)
	}
}

// Asking clai for the next command is not a step of the work: it is not
// learnt, so it is never suggested, and what comes after it follows what
// came before it.
func TestCommandsAskingClaiAreNotLearnt(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Understander = &understander{}
	d := start(t, cfg)
	now := time.Now()
	at := func(s int) time.Time { return now.Add(time.Duration(s) * time.Second) }
	accepted, skipped := d.ingest(t,
		event("a", "/repo/app", "git pull", at(0)),
		event("a", "/repo/app", "clai suggest --limit 3", at(1)),
		event("a", "/repo/app", "make test", at(2)),
		event("a", "/repo/app", "/usr/local/bin/clai init bash", at(3)),
		event("a", "/repo/app", "clai run deploy.yaml", at(4)),
		event("a", "/repo/app", "clear; clai suggest --limit 4", at(5)),
		event("a", "/repo/app", "cd /repo/app && ./bin/clai suggest", at(6)),
		event("a", "/repo/app", "echo clai suggest", at(7)),
		event("a", "/repo/app", "clai history forget ghp_secret", at(8)),
	)
	if accepted != 4 || skipped != 5 {
		t.Fatalf("ingest took %d, skipped %d; want 4, 5", accepted, skipped)
	}
	if _, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "c", Cwd: "/repo/app", LastCmd: "git pull", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	ev := d.r.evidence()
	if len(ev.RepoTransitions) != 1 || ev.RepoTransitions[0].Next != "make test" {
		t.Fatalf("repo transitions after git pull %+v, want make test only", ev.RepoTransitions)
	}
	for _, c := range ev.RepoCommands {
		if c.Template != "echo clai suggest" && (strings.Contains(c.Template, "suggest") || strings.Contains(c.Template, "init") || strings.Contains(c.Template, "forget")) {
			t.Errorf("learnt %q", c.Template)
		}
	}
	var h daemon.Health
	if err := d.client.Get(t.Context(), "/healthz", &h); err != nil {
		t.Fatal(err)
	}
	if h.AskedClai != 5 {
		t.Errorf("healthz counts %d commands asking clai, want 5", h.AskedClai)
	}
}

// spoolRecord is one spool record of a command, as the zsh and fish hooks
// write it.
func spoolRecord(t *testing.T, session, cwd, cmd string, at time.Time) []byte {
	t.Helper()
	b, err := hookproto.AppendSpoolCommand(nil, hookproto.Event{Shell: "zsh", Session: session, PID: 1, TSMillis: at.UnixMilli(), Cwd: cwd, Cmd: cmd, DurationMS: 3})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSpooledCommandsAreLearntBeforeASuggestion(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	// The daemon's own reading never comes in this test: what it learns, it
	// learns from the spool read before each answer.
	cfg.SpoolEvery = time.Hour
	d := start(t, cfg)
	path, err := hookproto.SpoolFile(filepath.Dir(cfg.Socket), "d-0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var data []byte
	for i, cmd := range []string{"git pull", "make test", "git pull", "make test", "git pull"} {
		data = append(data, spoolRecord(t, "d-0123456789abcdef", "/repo/app", cmd, now.Add(time.Duration(i)*time.Second))...)
	}
	data = append(data, "garbled\x00\n"...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "d-0123456789abcdef", Cwd: "/repo/app"})
	if err != nil {
		t.Fatal(err)
	}
	if ev := d.r.evidence(); ev.Prev != "git pull" || len(ev.RepoTransitions) != 1 || ev.RepoTransitions[0].Count != 2 {
		t.Fatalf("evidence %+v, want make test twice after git pull", ev)
	}
	if len(reply.Suggestions) == 0 || reply.Suggestions[0].Command != "make test" {
		t.Fatalf("suggestions %+v", reply.Suggestions)
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Spooled != 5 || h.Accepted != 5 || h.LinesBad != 1 {
		t.Fatalf("health %+v, want 5 events spooled and the garbled bytes counted", h)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the spool file was not taken: %v", err)
	}
}

func TestTheDaemonReadsTheSpoolOnItsOwn(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	clock := fakeclock.New(time.Now())
	cfg.Clock = clock
	d := start(t, cfg)
	// The daemon read the spool as it started, and waits a tick.
	clock.WaitFor(t, daemon.DefaultSpoolEvery)
	path, _ := hookproto.SpoolFile(filepath.Dir(cfg.Socket), "d-1")
	if err := os.WriteFile(path, spoolRecord(t, "d-1", "/repo/app", "make lint", clock.Now()), 0o600); err != nil {
		t.Fatal(err)
	}
	clock.Advance(daemon.DefaultSpoolEvery)
	clock.WaitFor(t, daemon.DefaultSpoolEvery)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a tick on, the spool file is still there: %v", err)
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Spooled != 1 {
		t.Fatalf("health %+v", h)
	}
}

func TestASpoolLongerThanTheWritersQueueLosesNothing(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.SpoolEvery, cfg.Queue = time.Hour, 100
	d := start(t, cfg)
	const n = 1000
	now := time.Now()
	var data []byte
	for i := range n {
		data = append(data, spoolRecord(t, "d-1", "/repo/app", fmt.Sprintf("make t%d", i%50), now.Add(time.Duration(i)*time.Millisecond))...)
	}
	path, _ := hookproto.SpoolFile(filepath.Dir(cfg.Socket), "d-1")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Spooled != n || h.Dropped != 0 {
		t.Fatalf("of %d events spooled, %d taken and %d dropped", n, h.Spooled, h.Dropped)
	}
}

// bashSame is a spool record of a command bash ran without its history
// growing, as its hook writes it.
func bashSame(session, cmd string, at time.Time) string {
	return fmt.Sprintf("clai1\x00bash-history-same\x00bash\x00%s\x001\x00%d\x000\x003\x00/repo/app\x00  9  %s\n\x00\n", session, at.UnixMilli(), cmd)
}

func TestACommandBashKeptOutOfItsHistoryIsLearntOnlyIfNew(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.SpoolEvery = time.Hour
	d := start(t, cfg)
	now := time.Now()
	at := func(s int) time.Time { return now.Add(time.Duration(s) * time.Second) }
	data := string(spoolRecord(t, "d-5", "/repo/app", "git status", at(0))) +
		// ignorespace: a secret typed with a space; history 1 is git status.
		bashSame("d-5", "git status", at(1)) +
		// erasedups: make test was in the history before, and moved last.
		bashSame("d-5", "make test", at(2)) +
		// ignoredups: make test again.
		bashSame("d-5", "make test", at(3))
	path, _ := hookproto.SpoolFile(filepath.Dir(cfg.Socket), "d-5")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Spooled != 2 || h.NotNew != 2 {
		t.Fatalf("health %+v, want 2 taken, 2 not new", h)
	}
	if _, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "d-5", Cwd: "/repo/app"}); err != nil {
		t.Fatal(err)
	}
	if ev := d.r.evidence(); ev.Prev != "make test" {
		t.Fatalf("the session's last command %q, want make test", ev.Prev)
	}
}

func TestABurstLargerThanTheQueueGetsHonestCounts(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.SpoolEvery, cfg.Queue = time.Hour, 100
	d := start(t, cfg)
	const requests, each = 20, 500
	now := time.Now()
	var wg sync.WaitGroup
	replies := make([]daemon.IngestReply, requests)
	errs := make([]error, requests)
	for r := range requests {
		var body strings.Builder
		for i := range each {
			body.WriteString(event(fmt.Sprintf("s%d", r), "/tmp", fmt.Sprintf("make r%d-%d", r, i), now.Add(time.Duration(i)*time.Millisecond)))
		}
		wg.Go(func() { replies[r], errs[r] = d.client.IngestCounts(t.Context(), []byte(body.String())) })
	}
	wg.Wait()
	var accepted, dropped int
	for r, reply := range replies {
		if reply.Accepted+reply.Dropped+reply.Skipped != each || (reply.Dropped > 0) != (errs[r] != nil || reply.Error != "") {
			t.Errorf("request %d: %+v, %v", r, reply, errs[r])
		}
		accepted += reply.Accepted
		dropped += reply.Dropped
	}
	h, err := d.client.Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h.Accepted != int64(accepted) || h.Dropped+h.Failed != int64(dropped) {
		t.Fatalf("the replies took %d and dropped %d; health says %+v", accepted, dropped, h)
	}
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), cfg.Database, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if c, err := st.Count(t.Context()); err != nil || c.Events != int64(accepted) {
		t.Fatalf("the store holds %+v, %v; the replies said %d were taken", c, err, accepted)
	}
}
