// Package daemon is the suggestion engine's server, one per user: it takes
// the shell hooks' events over a Unix socket, learns from them in the store,
// and answers what to run next.
//
// A file lock beside the socket makes it the only daemon of that socket and
// the only process that migrates the database; the socket serves HTTP to the
// processes of its user only:
//
//	GET  /healthz            the daemon's state
//	POST /ingest             events, one JSON object a line
//	POST /suggest            the next commands for a shell
//	POST /forget             forget commands and what was learnt from them
//	GET  /debug/scores       what is learnt, as JSON: decayed frequencies,
//	GET  /debug/transitions  transitions,
//	GET  /debug/tasks        and the project tasks
//
// The hooks of bash, zsh and fish do not connect at each prompt: they append
// the command to their shell's spool file (see hookproto.Spool), which the
// daemon takes every second and before it answers a request.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/internal/pidlock"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/score"
	"github.com/clai-sh/clai/runner/suggest/secretfilter"
	"github.com/clai-sh/clai/runner/suggest/store"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

// Defaults of Config.
const (
	DefaultRetention  = store.DefaultRetention
	DefaultPurgeEvery = time.Hour
	DefaultSpoolEvery = time.Second
)

// maxConns is how many connections the daemon serves at once; more wait.
const maxConns = 64

// Understander tells what the daemon needs to know of a command and of the
// folder it ran in.
type Understander interface {
	// Command is the command line understood: its template, args, tool.
	Command(line string) normalize.Command
	// Repo is the repository cwd is in: its key and its root folder, both ""
	// outside one. gitRan tells that a git command just ran there.
	Repo(ctx context.Context, cwd string, gitRan bool) (key, root string)
	// Tasks are the project tasks defined in the folder root.
	Tasks(ctx context.Context, root string) ([]store.Task, error)
	// WorkTree is the state of the work tree of the repository whose root
	// is root, false when it cannot be told; refresh tells that a command
	// just ran there and may have changed it.
	WorkTree(ctx context.Context, root string, refresh bool) (gitctx.Status, bool)
}

// Ranker ranks what the store knows into suggestions, the best first, at
// most limit of them.
type Ranker interface {
	Rank(ev Evidence, limit int) []Suggestion
}

// Config is how a daemon runs.
type Config struct {
	// Socket is the path of the daemon's Unix socket. Its lock file is
	// beside it, and the session files in its folder.
	Socket string
	// Database is the path of the SQLite database.
	Database string
	// Retention is how long command events are kept (DefaultRetention when
	// zero); PurgeEvery how often the older ones are purged
	// (DefaultPurgeEvery when zero).
	Retention, PurgeEvery time.Duration
	// SpoolEvery is how often the shells' spool files are read
	// (DefaultSpoolEvery when zero); SpoolSettle how long a file taken is
	// watched for a record still being written (hookproto.DefaultSpoolSettle
	// when zero).
	SpoolEvery, SpoolSettle time.Duration
	// Queue bounds the events of POST /ingest waiting to be committed
	// (store.DefaultQueue when zero): a request waits for room a few
	// seconds at most, then answers what it dropped. The spool commits a
	// batch at a time and needs no room.
	Queue int
	// RebuildAggregates recomputes what is learnt from the events kept,
	// before serving.
	RebuildAggregates bool
	// Store tunes the learning.
	Store store.Options
	// Secrets finds the commands that hold a secret, which are neither
	// stored nor suggested; nil applies the built-in rules only (see
	// secretfilter).
	Secrets *secretfilter.Filter
	// Ignore is the stop-list of commands neither learnt nor suggested
	// (score.Ignored); nil is score.DefaultIgnore(), an empty list ignores
	// nothing. Commands that did not run (score.NotFound) are never learnt.
	Ignore []string
	// Understander and Ranker, when nil, are NewUnderstander's and
	// NewRanker's.
	Understander Understander
	Ranker       Ranker
	// Clock is the daemon's time; nil is the wall clock.
	Clock store.Clock
	// Log receives the daemon's messages, one a line; nil discards them.
	Log io.Writer
}

// ErrAlreadyRunning is the error of a daemon started while another one holds
// the lock.
var ErrAlreadyRunning = errors.New("daemon already running")

// LockPath is the path of the lock file of the daemon of socket: the
// socket's path with the extension .lock.
func LockPath(socket string) string {
	return strings.TrimSuffix(socket, filepath.Ext(socket)) + ".lock"
}

// Run runs the daemon until ctx ends. It takes the lock (a daemon already
// running is ErrAlreadyRunning), checks the database (one that is not
// SQLite or fails SQLite's quick check is moved aside, said in the log, and
// a fresh one made), migrates it, removes a stale socket, then serves.
func Run(ctx context.Context, cfg Config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Socket), 0o700); err != nil {
		return fmt.Errorf("daemon socket folder: %w", err)
	}
	lock, err := takeLock(cfg.Socket)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	moved, err := store.CheckOrMoveAside(ctx, cfg.Database, cfg.Clock.Now())
	if err != nil {
		return err
	}
	if moved != nil {
		fmt.Fprintf(cfg.Log, "clai daemon: the database %s is damaged (%v); it was moved to %s and a fresh one is made: "+
			"what was learnt starts again. The old file may hold commands that sqlite3's .recover can read back; delete it when done.\n",
			moved.Path, moved.Reason, moved.To)
	}
	st, err := store.Open(ctx, cfg.Database, cfg.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	if cfg.RebuildAggregates {
		if err := st.RebuildAggregates(ctx); err != nil {
			return err
		}
		fmt.Fprintf(cfg.Log, "clai daemon: rebuilt the transitions and scores from the events of %s\n", cfg.Database)
	}
	ln, err := listen(cfg.Socket)
	if err != nil {
		return err
	}
	d := newServer(cfg, st)
	defer d.close()
	if err := d.spool.Prepare(); err != nil {
		return err
	}
	return d.serve(ctx, ln)
}

// withDefaults fills in what cfg leaves out.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Understander == nil {
		cfg.Understander = NewUnderstander(tasks.Options{})
	}
	if cfg.Ignore == nil {
		cfg.Ignore = score.DefaultIgnore()
	}
	if err := score.CheckIgnore(cfg.Ignore); err != nil {
		return cfg, err
	}
	if cfg.Ranker == nil {
		r, err := NewRankerIgnoring(cfg.Ignore)
		if err != nil {
			return cfg, err
		}
		cfg.Ranker = r
	}
	if cfg.Clock == nil {
		cfg.Clock = store.SystemClock{}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	cfg.Log = &syncWriter{w: cfg.Log}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.PurgeEvery <= 0 {
		cfg.PurgeEvery = DefaultPurgeEvery
	}
	if cfg.SpoolEvery <= 0 {
		cfg.SpoolEvery = DefaultSpoolEvery
	}
	return cfg, nil
}

// takeLock takes the daemon's lock beside socket, and writes this process's
// id in it for the message of a second daemon.
func takeLock(socket string) (*pidlock.Lock, error) {
	path := LockPath(socket)
	lock, held, err := pidlock.TryLock(path)
	if err != nil {
		return nil, fmt.Errorf("daemon %w", err)
	}
	if held {
		return nil, fmt.Errorf("%w%s (its lock is %s); it serves %s", ErrAlreadyRunning, holder(path), path, socket)
	}
	return lock, nil
}

// holder names the process that holds the lock at path, as it wrote itself
// there, or "".
func holder(path string) string {
	if pid := pidlock.Holder(path); pid > 0 {
		return fmt.Sprintf(" as process %d", pid)
	}
	return ""
}

// listen binds the socket, removing a stale one first: the lock is held, so
// no other daemon serves it.
func listen(socket string) (net.Listener, error) {
	if err := os.Remove(socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("stale daemon socket: %w", err)
	}
	ln, err := hookproto.UnixSocket{Path: socket}.Listen()
	if err != nil {
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	return ln, nil
}

// server is a running daemon.
type server struct {
	cfg    Config
	store  *store.Store
	writer *store.Writer
	tasks  *taskCache
	spool  *hookproto.Spool
	start  time.Time

	// What ingest skipped: lines too long, lines it could not read, lines of
	// a newer version, commands that ask clai for suggestions, commands
	// that were to be taken only if new and were not; and the events it
	// committed, and of those the ones the spool held; the events POST
	// /ingest dropped for want of room, and because their commit failed;
	// the transactions committed; the commands that held a secret, and
	// those that did not run or are on the stop-list (noise).
	tooLong, bad, newer, own, notNew, secret, noise, accepted, spooled, dropped, failed, batches atomic.Int64

	// queue bounds the events of POST /ingest waiting to be committed:
	// room holds that many.
	queue      int
	room       *semaphore.Weighted
	ingestWait time.Duration
	// apply commits a batch of events: the store's Apply.
	apply func(context.Context, []store.Event) error
	// writes is how the commits fare; spoolMu makes one read of the spool
	// at a time.
	writes  *writes
	spoolMu sync.Mutex

	// last is the template of each session's last command taken, for the
	// commands taken only if new (see hookproto.Event.IfNew).
	lastMu sync.Mutex
	last   map[string]string

	// trees tells the work trees a command changed since they were read.
	trees treeMarks
}

func newServer(cfg Config, st *store.Store) *server {
	d := &server{cfg: cfg, store: st, start: cfg.Clock.Now(), last: map[string]string{}, queue: cfg.Queue, apply: st.Apply, ingestWait: ingestWait}
	if d.queue <= 0 {
		d.queue = store.DefaultQueue
	}
	d.room = semaphore.NewWeighted(int64(d.queue))
	d.writes = &writes{logf: d.logf, base: cfg.SpoolEvery}
	d.writer = store.NewWriter(st, store.WriterOptions{Clock: cfg.Clock})
	d.tasks = newTaskCache(cfg.Clock)
	d.spool = &hookproto.Spool{Dir: filepath.Dir(cfg.Socket), Settle: cfg.SpoolSettle, Now: cfg.Clock.Now}
	return d
}

// logf writes one message of the daemon.
func (d *server) logf(format string, args ...any) {
	fmt.Fprintf(d.cfg.Log, "clai daemon: "+format+"\n", args...)
}

// syncWriter serialises the writes of the daemon's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// close commits what is queued.
func (d *server) close() { d.writer.Close() }

// HTTP bounds: a slow client is cut off, a body is bounded.
const (
	readHeaderTimeout = 2 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 10 * time.Second
	idleTimeout       = 30 * time.Second
	maxHeaderBytes    = 16 << 10
)

// serve serves ln until ctx ends, purging on the side.
func (d *server) serve(ctx context.Context, ln net.Listener) error {
	pl := peer.Listen(ln, os.Getuid(), maxConns, func(err error) {
		d.logf("connection refused: %v", err)
	})
	srv := &http.Server{
		Handler:           d.routes(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(pl) }()
	purged, spooled := make(chan struct{}), make(chan struct{})
	go func() { defer close(purged); d.purgeLoop(ctx) }()
	go func() { defer close(spooled); d.spoolLoop(ctx) }()
	d.logf("serving on %s (database %s)", d.cfg.Socket, d.cfg.Database)
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		err = fmt.Errorf("daemon socket: %w", err)
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	<-purged
	<-spooled
	_ = os.Remove(d.cfg.Socket)
	return err
}

// purgeLoop purges what is older than the retention now, then every
// PurgeEvery, until ctx ends.
func (d *server) purgeLoop(ctx context.Context) {
	for {
		if err := d.purge(ctx); err != nil && ctx.Err() == nil {
			d.logf("purge: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-d.cfg.Clock.After(d.cfg.PurgeEvery):
		}
	}
}

// purge removes what is older than the retention, through the writer.
func (d *server) purge(ctx context.Context) error {
	before := d.cfg.Clock.Now().Add(-d.cfg.Retention)
	return d.writer.Do(ctx, func(ctx context.Context) error {
		p, err := d.store.Purge(ctx, before)
		if err == nil && p != (store.Purged{}) {
			d.logf("purged %d events, %d sessions, %d transitions, %d scores and %d tasks older than %s, and scrubbed the database%s",
				p.Events, p.Sessions, p.Transitions, p.Scores, p.Tasks, before.Format(time.DateOnly), vacuumed(p.Scrubbed))
		}
		return err
	})
}

// vacuumed tells a log line that a scrub vacuumed.
func vacuumed(s store.Scrubbed) string {
	if s.Vacuumed {
		return fmt.Sprintf(" (vacuumed: %d of %d pages were free)", s.FreePages, s.Pages)
	}
	return ""
}

// spoolLoop reads the shells' spool files every SpoolEvery until ctx ends,
// and once more then.
func (d *server) spoolLoop(ctx context.Context) {
	for {
		d.takeSpool(context.WithoutCancel(ctx))
		select {
		case <-ctx.Done():
			d.takeSpool(context.WithoutCancel(ctx))
			return
		case <-d.cfg.Clock.After(d.cfg.SpoolEvery):
		}
	}
}

// takeSpool reads what the shells appended to their spool files and
// commits it a batch at a time, as ingest does. A batch whose commit fails
// stays in the spool (see hookproto.Spool.TakeBatches), which is then behind:
// it is read again once its backoff is over, from the failed batch on.
func (d *server) takeSpool(ctx context.Context) {
	d.spoolMu.Lock()
	defer d.spoolMu.Unlock()
	if !d.writes.spoolDue(d.cfg.Clock.Now()) {
		return
	}
	st, err := d.spool.TakeBatches(func(events []hookproto.Event) error {
		t, err := d.commit(ctx, events, time.Time{})
		d.spooled.Add(int64(t.taken))
		return err
	})
	d.tooLong.Add(int64(st.TooLong))
	d.bad.Add(int64(st.Bad))
	d.newer.Add(int64(st.Newer))
	var failed *hookproto.CommitError
	if errors.As(err, &failed) {
		// The log said so once when writes began to fail.
		d.writes.spoolFailed(d.cfg.Clock.Now())
		return
	}
	d.writes.spoolCaughtUp()
	if err != nil {
		d.logf("%v", err)
	}
}
