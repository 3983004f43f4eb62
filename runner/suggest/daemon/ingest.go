package daemon

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/score"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// maxIngestBody bounds the body of one POST /ingest.
const maxIngestBody = 16 << 20

// ingestWait bounds how long POST /ingest waits for room among the events
// waiting to be committed; what finds none by then is dropped, and the reply
// says how many.
const ingestWait = 5 * time.Second

// ingestChunk is the most events of one POST /ingest committed together.
const ingestChunk = 500

// retryAfter is the Retry-After, in seconds, of a POST /ingest that took
// nothing.
const retryAfter = "1"

// IngestReply is what POST /ingest answers (see hookproto.IngestReply):
// accepted events are committed to the database; dropped ones are not, and
// may be sent again.
type IngestReply = hookproto.IngestReply

// ingest takes NDJSON events and commits them before it answers, so that
// its reply says what the database took. It waits ingestWait at most for
// room among the events waiting to be committed (Config.Queue); what finds
// none, or whose commit fails, is answered as dropped, and a request that
// took nothing for that is answered 429 (no room) or 503 (a failed write)
// with Retry-After. A line longer than maxLine is skipped and counted, as is
// one that is no event; the body is bounded.
func (d *server) ingest(w http.ResponseWriter, r *http.Request) {
	body := http.MaxBytesReader(w, r.Body, maxIngestBody)
	br := bufio.NewReaderSize(body, 64<<10)
	// The hooks close the connection once they have written, without
	// waiting for the reply: what ingest asks git and commits must not end
	// with the request.
	in := d.newIntake(context.WithoutCancel(r.Context()))
	for {
		line, tooLong, err := readLine(br)
		switch {
		case tooLong:
			d.tooLong.Add(1)
			in.reply.Skipped++
		case len(line) > 0:
			in.line(line)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			in.flush()
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, fmt.Sprintf("body longer than %d bytes (%d events taken before)", maxIngestBody, in.reply.Accepted), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, fmt.Sprintf("reading the body (%d events taken before): %v", in.reply.Accepted, err), http.StatusBadRequest)
			return
		}
	}
	in.flush()
	writeIngestReply(w, in)
}

// writeIngestReply answers an ingest: 200 when it took some events or had
// nothing to take, else 429 or 503 with Retry-After.
func writeIngestReply(w http.ResponseWriter, in *intake) {
	status := http.StatusOK
	if in.reply.Accepted == 0 && in.reply.Dropped > 0 {
		status = http.StatusTooManyRequests
		if in.writeFailed {
			status = http.StatusServiceUnavailable
		}
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(in.reply)
}

// intake is the events of one POST /ingest, committed a chunk at a time.
type intake struct {
	d           *server
	ctx         context.Context
	deadline    time.Time
	chunk       []hookproto.Event
	reply       IngestReply
	writeFailed bool
}

func (d *server) newIntake(ctx context.Context) *intake {
	// The wait is the request's, on the wall clock as the server's own
	// timeouts are, not the daemon's time of events.
	return &intake{d: d, ctx: ctx, deadline: time.Now().Add(d.ingestWait)}
}

// line reads one event line into the chunk, committing a full one.
func (in *intake) line(line []byte) {
	e, ok := in.d.parse(line)
	if !ok {
		in.reply.Skipped++
		return
	}
	in.chunk = append(in.chunk, e)
	if len(in.chunk) >= min(ingestChunk, in.d.queue) {
		in.flush()
	}
}

// flush commits the chunk once there is room for it, or counts it dropped.
func (in *intake) flush() {
	n := len(in.chunk)
	if n == 0 {
		return
	}
	defer func() { in.chunk = in.chunk[:0] }()
	wait, cancel := context.WithDeadline(in.ctx, in.deadline)
	defer cancel()
	if !in.d.room.TryAcquire(int64(n)) && in.d.room.Acquire(wait, int64(n)) != nil {
		in.d.dropped.Add(int64(n))
		in.reply.Dropped += n
		in.reply.Error = fmt.Sprintf("no room for %d events within %s: send them again later", n, in.d.ingestWait)
		return
	}
	defer in.d.room.Release(int64(n))
	t, err := in.d.commit(in.ctx, in.chunk, in.deadline)
	switch {
	case errors.Is(err, errBusy):
		// No room in time after all: the writer did not get to it.
		in.d.dropped.Add(int64(n))
	case err != nil:
		in.d.failed.Add(int64(n))
		in.writeFailed = true
	}
	if err != nil {
		in.reply.Dropped += n
		in.reply.Error = err.Error()
		return
	}
	in.reply.Accepted += t.taken
	in.reply.Skipped += t.own + t.notNew + t.secret + t.noise
}

// readLine reads one line of br, without its end. A line longer than
// hookproto.MaxLine is read to its end and dropped: tooLong is then true.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > hookproto.MaxLine+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		line = trimEOL(line)
		if len(line) > hookproto.MaxLine {
			return nil, true, err
		}
		return line, false, err
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// parse reads one event line, counting one it cannot take.
func (d *server) parse(line []byte) (hookproto.Event, bool) {
	w, err := hookproto.ParseLine(line)
	if err != nil {
		if errors.Is(err, hookproto.ErrNewer) {
			d.newer.Add(1)
		} else {
			d.bad.Add(1)
		}
		return w, false
	}
	return w, true
}

// verdict is what understanding an event decided.
type verdict int

const (
	learn       verdict = iota // an event to store
	askingClai                 // a command that asks clai itself
	notNew                     // a command bash ran again without its history growing
	holdsSecret                // a command that holds a secret: never stored
	isNoise                    // a command that did not run, or on the stop-list
)

// understand makes one event a store event, or says why it is not learnt
// from. A session_start is assigned a session id, which the shell finds in
// its session file.
// trees holds the work trees read for the batch the event is in: every
// command of a batch that ended a moment ago left the tree as it is now.
func (d *server) understand(ctx context.Context, w hookproto.Event, trees map[string]*store.TreeState) (store.Event, verdict) {
	if w.Session == "" {
		// A shell whose hooks found no session id: its process stands for
		// it.
		w.Session = "pid-" + strconv.Itoa(w.PID)
	}
	e := store.Event{Session: w.Session, Shell: w.Shell, PID: w.PID, At: d.eventTime(w.TSMillis), Cwd: w.Cwd, Duration: -1}
	switch w.Type {
	case hookproto.TypeSessionStart:
		e.Kind = store.SessionStart
		if w.PID > 0 {
			id := newSessionID()
			if err := hookproto.WriteSessionFile(filepath.Dir(d.cfg.Socket), w.PID, id); err != nil {
				d.logf("%v", err)
			} else {
				e.Session = id
			}
		}
	case hookproto.TypeSessionEnd:
		e.Kind = store.SessionEnd
	case hookproto.TypeCommand:
		if d.cfg.Secrets.Secret(w.Cmd) {
			// Not stored at all, not even as a template: a template keeps
			// the command's shape and would be suggested back broken. Only
			// the count says it was there.
			return e, holdsSecret
		}
		e.Kind, e.Cmd, e.Exit = store.Command, w.Cmd, w.Exit
		if w.DurationMS != hookproto.UnknownDuration {
			e.Duration = time.Duration(w.DurationMS) * time.Millisecond
		}
		c := d.cfg.Understander.Command(w.Cmd)
		if asksClai(c) {
			// Asking for the next command is not a step of the work: it
			// would come back as a suggestion of its own.
			return e, askingClai
		}
		if w.IfNew && d.lastTemplate(ctx, w.Session) == c.Template {
			// bash ran a command its history did not grow by, and the
			// command it shows is the last one again: a line the history
			// keeps out, or the same command again; neither is learnt.
			return e, notNew
		}
		if score.NotFound(w.Exit) || score.Ignored(c.Template, d.cfg.Ignore) {
			// A command that did not run (a typo) or that tends the
			// terminal, not the work: learnt, it would come back as a
			// suggestion, and stand between the steps it came between.
			return e, isNoise
		}
		e.Template, e.Args, e.Tool = c.Template, c.Args, c.Tool
		var root string
		e.RepoKey, root = d.cfg.Understander.Repo(ctx, w.Cwd, c.Git)
		if e.RepoKey != "" {
			d.tasksOf(ctx, e.RepoKey, root)
			e.Tree = d.treeAfter(ctx, root, e.At, trees)
		}
	}
	return e, learn
}

// tally counts what one commit took and left out.
type tally struct{ taken, own, notNew, secret, noise int }

// errBusy is the error of a commit the writer could not start before its
// deadline.
var errBusy = errors.New("the writer was busy past the wait")

// commit understands events and commits those to learn in one transaction,
// through the writer; the counters count them only once it succeeded. When
// deadline is set and the writer starts the transaction after it, nothing is
// written and the error is errBusy (deadline is on the wall clock).
func (d *server) commit(ctx context.Context, events []hookproto.Event, deadline time.Time) (tally, error) {
	var t tally
	batch := make([]store.Event, 0, len(events))
	sessions := map[string]bool{}
	trees := map[string]*store.TreeState{}
	for _, w := range events {
		e, v := d.understand(ctx, w, trees)
		switch v {
		case askingClai:
			t.own++
			continue
		case notNew:
			t.notNew++
			continue
		case holdsSecret:
			t.secret++
			continue
		case isNoise:
			t.noise++
			continue
		}
		if e.Kind == store.Command {
			// A later event of the batch taken only if new is told apart
			// from this one.
			d.setLast(e.Session, e.Template)
			sessions[e.Session] = true
		}
		batch = append(batch, e)
	}
	if err := d.write(ctx, batch, deadline); err != nil {
		// What the store does not hold is no session's last command.
		d.forgetLast(sessions)
		return tally{}, err
	}
	d.own.Add(int64(t.own))
	d.notNew.Add(int64(t.notNew))
	d.secret.Add(int64(t.secret))
	d.noise.Add(int64(t.noise))
	d.accepted.Add(int64(len(batch)))
	t.taken = len(batch)
	return t, nil
}

// write commits batch in one transaction through the writer, its events in
// the order of their times: the hooks send in the background, and a
// command's event may overtake the one before it.
func (d *server) write(ctx context.Context, batch []store.Event, deadline time.Time) error {
	if len(batch) == 0 {
		return nil
	}
	slices.SortStableFunc(batch, func(a, b store.Event) int { return a.At.Compare(b.At) })
	err := d.writer.Do(context.WithoutCancel(ctx), func(ctx context.Context) error {
		if !deadline.IsZero() && time.Now().After(deadline) {
			return errBusy
		}
		return d.apply(ctx, batch)
	})
	if err == nil {
		d.batches.Add(1)
		d.writes.succeeded(d.cfg.Clock.Now())
		return nil
	}
	if !errors.Is(err, errBusy) {
		d.writes.failedWrite(d.cfg.Clock.Now(), err)
	}
	return fmt.Errorf("commit %d events: %w", len(batch), err)
}

// maxLast bounds the sessions whose last command the daemon keeps in
// memory; past it, they are asked of the store again.
const maxLast = 4096

// forgetLast forgets the last command of sessions, which the store then
// tells again.
func (d *server) forgetLast(sessions map[string]bool) {
	d.lastMu.Lock()
	defer d.lastMu.Unlock()
	for s := range sessions {
		delete(d.last, s)
	}
}

// lastTemplate is the template of session's last command taken: the one
// kept in memory, else the store's.
func (d *server) lastTemplate(ctx context.Context, session string) string {
	d.lastMu.Lock()
	t, ok := d.last[session]
	d.lastMu.Unlock()
	if ok {
		return t
	}
	t, err := d.store.LastCommand(ctx, session)
	if err != nil {
		d.logf("the last command of session %s: %v", session, err)
	}
	return t
}

// setLast keeps template as session's last command.
func (d *server) setLast(session, template string) {
	d.lastMu.Lock()
	defer d.lastMu.Unlock()
	if _, ok := d.last[session]; !ok && len(d.last) >= maxLast {
		clear(d.last)
	}
	d.last[session] = template
}

// eventTime is the time of an event: the one its shell gave, else now.
func (d *server) eventTime(ms int64) time.Time {
	if ms <= 0 {
		return d.cfg.Clock.Now()
	}
	return time.UnixMilli(ms)
}

// newSessionID is a session id the daemon assigns: d- and 16 random
// hexadecimal digits.
func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "d-" + hex.EncodeToString(b[:])
}

// asksClai tells whether a command line asks clai for suggestions, hooks or
// to forget (clai suggest, clai init, clai history: its pattern may be the
// very secret to forget), which the engine does not learn from: the
// program it runs first (past variables, time, sudo), or one after a ;, &,
// && or |.
func asksClai(c normalize.Command) bool {
	words := strings.Fields(c.Template)
	tool := c.Tool
	if tool == "" && len(words) > 0 {
		tool = filepath.Base(words[0])
	}
	for i, w := range words[:max(len(words)-1, 0)] {
		isClai := w == "clai" || strings.HasSuffix(w, "/clai") || (w == normalize.SlotPath && tool == "clai")
		if !isClai || words[i+1] != "suggest" && words[i+1] != "init" && words[i+1] != "history" {
			continue
		}
		if tool == "clai" || i == 0 || strings.ContainsAny(words[i-1][len(words[i-1])-1:], ";&|") {
			return true
		}
	}
	return false
}
