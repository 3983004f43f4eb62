package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/fakeclock"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// plainUnderstander takes a command as its own template, outside any
// repository.
type plainUnderstander struct{}

func (plainUnderstander) Command(line string) normalize.Command {
	return normalize.Command{Template: line}
}
func (plainUnderstander) Repo(context.Context, string, bool) (string, string) { return "", "" }
func (plainUnderstander) Tasks(context.Context, string) ([]store.Task, error) { return nil, nil }
func (plainUnderstander) WorkTree(context.Context, string, bool) (gitctx.Status, bool) {
	return gitctx.Status{}, false
}

// lines is a log kept line by line.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, strings.Split(strings.TrimSuffix(string(p), "\n"), "\n")...)
	return len(p), nil
}

func (l *lines) with(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.l {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// failingStore is the store's Apply, failing as a full disk does while full
// is set.
type failingStore struct {
	mu    sync.Mutex
	full  bool
	tries int
	apply func(context.Context, []store.Event) error
}

func (f *failingStore) Apply(ctx context.Context, events []store.Event) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.full {
		return errors.New("database or disk is full (13)")
	}
	return f.apply(ctx, events)
}

func (f *failingStore) set(full bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.full = full
}

// testServer is a server of its own folder whose commits go through a
// failingStore, without its loops: the test reads the spool.
func testServer(t *testing.T, clock store.Clock, log *lines) (*server, *failingStore) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := Config{
		Socket: filepath.Join(dir, "rt", "daemon.sock"), Database: filepath.Join(dir, "suggest.db"),
		Understander: plainUnderstander{}, Clock: clock, Log: log, Queue: 100,
	}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), cfg.Database, cfg.Store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	d := newServer(cfg, st)
	t.Cleanup(d.close)
	fs := &failingStore{apply: st.Apply}
	d.apply = fs.Apply
	if err := os.Mkdir(d.spool.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := d.spool.Prepare(); err != nil {
		t.Fatal(err)
	}
	return d, fs
}

// writeSpool writes n commands to the spool file of session.
func writeSpool(t *testing.T, d *server, session string, n int) []string {
	t.Helper()
	path, err := hookproto.SpoolFile(d.spool.Dir, session)
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	var cmds []string
	for i := range n {
		cmd := fmt.Sprintf("make %s-%d", session, i)
		cmds = append(cmds, cmd)
		data, err = hookproto.AppendSpoolCommand(data, hookproto.Event{Shell: "zsh", Session: session, PID: 1,
			TSMillis: int64(1700000000000 + i), Cwd: "/tmp", Cmd: cmd, DurationMS: 1})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return cmds
}

func (d *server) health(t *testing.T) Health {
	t.Helper()
	rec := httptest.NewRecorder()
	d.healthz(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/healthz", nil))
	var h Health
	if err := json.Unmarshal(rec.Body.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAFailedCommitKeepsTheSpoolAndIsRetriedWithBackoff(t *testing.T) {
	t.Parallel()
	clock := fakeclock.New(time.Unix(1700000000, 0))
	log := &lines{}
	d, fs := testServer(t, clock, log)
	fs.set(true)
	cmds := append(writeSpool(t, d, "d-aa", 700), writeSpool(t, d, "d-bb", 30)...)
	h := d.health(t)
	if !h.Behind || h.PendingEvents != len(cmds) || h.Accepted != 0 || h.LastWriteError == "" || h.WriteFailures != 1 {
		t.Fatalf("with the disk full: %+v", h)
	}
	// Asked again before the backoff is over, the daemon does not try.
	for range 3 {
		d.takeSpool(t.Context())
	}
	clock.Advance(DefaultSpoolEvery)
	d.takeSpool(t.Context())
	clock.Advance(DefaultSpoolEvery)
	d.takeSpool(t.Context()) // the second wait is two seconds
	if fs.tries != 2 {
		t.Fatalf("%d tries, want 2: one at first, one when the first backoff was over", fs.tries)
	}
	// Long past the settle time the files are there still.
	clock.Advance(time.Hour)
	d.takeSpool(t.Context())
	if n := log.with("writes to the database fail"); n != 1 {
		t.Fatalf("the log said %d times that writes fail, want once", n)
	}
	fs.set(false)
	clock.Advance(time.Hour)
	h = d.health(t)
	if h.Behind || h.PendingEvents != 0 || h.LastWriteError != "" || h.Accepted != int64(len(cmds)) || h.Spooled != int64(len(cmds)) {
		t.Fatalf("once writes succeed: %+v", h)
	}
	if n := log.with("writes to the database succeed again"); n != 1 {
		t.Fatalf("the log said %d times that writes succeed again, want once", n)
	}
	counts, err := d.store.Count(t.Context())
	if err != nil || counts.Events != int64(len(cmds)) {
		t.Fatalf("the store holds %+v, %v; want %d events", counts, err, len(cmds))
	}
	clock.Advance(time.Hour)
	d.takeSpool(t.Context())
	for _, folder := range []string{hookproto.SpoolFolder, "shell-spool-taken"} {
		if entries, err := os.ReadDir(filepath.Join(d.spool.Dir, folder)); err != nil || len(entries) != 0 {
			t.Errorf("%s holds %d files, %v", folder, len(entries), err)
		}
	}
}

// post posts body to the server's ingest.
func (d *server) post(t *testing.T, body string) (int, http.Header, IngestReply) {
	t.Helper()
	rec := httptest.NewRecorder()
	d.ingest(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/ingest", strings.NewReader(body)))
	var r IngestReply
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatalf("reply %q: %v", rec.Body.String(), err)
	}
	return rec.Code, rec.Header(), r
}

func ndjson(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"v":1,"type":"command","session":"s","shell":"bash","pid":1,"ts_ms":%d,"cwd":"/tmp","cmd":"make t%d","exit":0}`+"\n", 1700000000000+i, i)
	}
	return b.String()
}

func TestIngestSaysWhatItDropped(t *testing.T) {
	t.Parallel()
	d, fs := testServer(t, store.SystemClock{}, &lines{})
	d.ingestWait = -time.Second
	// No room at all: nothing is taken, and the reply says to come back.
	if err := d.room.Acquire(t.Context(), int64(d.queue)); err != nil {
		t.Fatal(err)
	}
	code, header, r := d.post(t, ndjson(250))
	if code != http.StatusTooManyRequests || header.Get("Retry-After") == "" || r.Accepted != 0 || r.Dropped != 250 {
		t.Fatalf("with no room: %d %+v", code, r)
	}
	d.room.Release(int64(d.queue))
	// Room, but the writer starts past the wait: nothing is written.
	code, header, r = d.post(t, ndjson(250))
	if code != http.StatusTooManyRequests || header.Get("Retry-After") == "" || r.Accepted != 0 || r.Dropped != 250 {
		t.Fatalf("with the writer late: %d %+v", code, r)
	}
	d.ingestWait = ingestWait
	// A full disk: nothing is taken, 503; the queue of 100 makes it two
	// commits that fail.
	fs.set(true)
	code, header, r = d.post(t, ndjson(150))
	if code != http.StatusServiceUnavailable || header.Get("Retry-After") == "" || r.Accepted != 0 || r.Dropped != 150 || r.Error == "" {
		t.Fatalf("with the disk full: %d %+v", code, r)
	}
	fs.set(false)
	code, _, r = d.post(t, ndjson(250))
	if code != http.StatusOK || r.Accepted != 250 || r.Dropped != 0 {
		t.Fatalf("with room: %d %+v", code, r)
	}
	h := d.health(t)
	counts, err := d.store.Count(t.Context())
	if err != nil || h.Accepted != 250 || counts.Events != 250 || h.Dropped != 500 || h.Failed != 150 || h.WriteFailures != 2 {
		t.Fatalf("health %+v, store %+v, %v", h, counts, err)
	}
}
