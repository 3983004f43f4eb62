package daemon

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
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

// ingestReply is what POST /ingest answers: the hooks never read it, tests
// and people do.
type ingestReply struct {
	Accepted int `json:"accepted"`
	// Skipped counts the lines not taken: too long, unreadable, of a newer
	// version, or dropped because the writer was full.
	Skipped int `json:"skipped"`
}

// ingest takes NDJSON events. A line longer than maxLine is skipped and
// counted, as is one that is no event; the body is bounded.
func (d *server) ingest(w http.ResponseWriter, r *http.Request) {
	body := http.MaxBytesReader(w, r.Body, maxIngestBody)
	br := bufio.NewReaderSize(body, 64<<10)
	var reply ingestReply
	for {
		line, tooLong, err := readLine(br)
		switch {
		case tooLong:
			d.tooLong.Add(1)
			reply.Skipped++
		case len(line) > 0:
			// The hooks close the connection once they have written,
			// without waiting for the reply: what ingest asks git must not
			// end with the request.
			if d.take(context.WithoutCancel(r.Context()), line) {
				reply.Accepted++
			} else {
				reply.Skipped++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				http.Error(w, fmt.Sprintf("body longer than %d bytes", maxIngestBody), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	writeJSON(w, reply)
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

// take reads one event line and queues it for the writer.
func (d *server) take(ctx context.Context, line []byte) bool {
	w, err := hookproto.ParseLine(line)
	if err != nil {
		if errors.Is(err, hookproto.ErrNewer) {
			d.newer.Add(1)
		} else {
			d.bad.Add(1)
		}
		return false
	}
	return d.takeEvent(ctx, w, false)
}

// takeEvent understands one event and queues it for the writer: when the
// writer's queue is full, it waits for room if wait is set, else drops the
// event. A session_start is assigned a session id, which the shell finds in
// its session file.
func (d *server) takeEvent(ctx context.Context, w hookproto.Event, wait bool) bool {
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
		e.Kind, e.Cmd, e.Exit = store.Command, w.Cmd, w.Exit
		if w.DurationMS != hookproto.UnknownDuration {
			e.Duration = time.Duration(w.DurationMS) * time.Millisecond
		}
		c := d.cfg.Understander.Command(w.Cmd)
		if asksClai(c) {
			// Asking for the next command is not a step of the work: it
			// would come back as a suggestion of its own.
			d.own.Add(1)
			return false
		}
		if w.IfNew && d.lastTemplate(ctx, w.Session) == c.Template {
			// bash ran a command its history did not grow by, and the
			// command it shows is the last one again: a line the history
			// keeps out, or the same command again; neither is learnt.
			d.notNew.Add(1)
			return false
		}
		if score.NotFound(w.Exit) || score.Ignored(c.Template, d.cfg.Ignore) {
			// A command that did not run (a typo) or that tends the
			// terminal, not the work: learnt, it would come back as a
			// suggestion, and stand between the steps it came between.
			d.noise.Add(1)
			return false
		}
		e.Template, e.Args, e.Tool = c.Template, c.Args, c.Tool
		var root string
		e.RepoKey, root = d.cfg.Understander.Repo(ctx, w.Cwd, c.Git)
		if e.RepoKey != "" {
			d.tasksOf(ctx, e.RepoKey, root)
		}
	}
	queued := false
	if wait {
		queued = d.writer.AddWait(ctx, e)
	} else {
		queued = d.writer.Add(e)
	}
	if !queued {
		return false
	}
	if e.Kind == store.Command {
		d.setLast(e.Session, e.Template)
	}
	d.accepted.Add(1)
	return true
}

// maxLast bounds the sessions whose last command the daemon keeps in
// memory; past it, they are asked of the store again.
const maxLast = 4096

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

// asksClai tells whether a command line asks clai for suggestions or hooks
// (clai suggest, clai init), which the engine does not learn from: the
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
		if !isClai || words[i+1] != "suggest" && words[i+1] != "init" {
			continue
		}
		if tool == "clai" || i == 0 || strings.ContainsAny(words[i-1][len(words[i-1])-1:], ";&|") {
			return true
		}
	}
	return false
}
