package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"strconv"
	"sync"
	"time"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/runner/ask"
)

// The bounds of what a session's server takes from a client.
const (
	// maxAnswerBody is the largest answer a client may post.
	maxAnswerBody = 64 << 10
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 8 << 10
)

// limits bound the time a client may take, and how many may connect at once.
type limits struct {
	// readHeader and read bound how long a request's headers, and the
	// whole request with its body, may take to arrive.
	readHeader, read time.Duration
	// write bounds each reply, and each event of a stream: a client that
	// stops reading is dropped.
	write time.Duration
	// keepAlive is how often an event stream without events sends a
	// comment, so a client that went away is noticed.
	keepAlive time.Duration
	// conns is how many connections are served at once; more wait in the
	// listen queue until one closes.
	conns int
	// grace is how long Close lets the replies under way be written.
	grace time.Duration
}

// serveLimits returns the limits of every session's server.
func serveLimits() limits {
	return limits{
		readHeader: 5 * time.Second,
		read:       10 * time.Second,
		write:      10 * time.Second,
		keepAlive:  15 * time.Second,
		conns:      32,
		grace:      2 * time.Second,
	}
}

// api serves a desk's session, its routes:
//
//	GET  /v1/session  the session (ask.Session)
//	GET  /v1/screen   what the program shows (ask.Screen)
//	GET  /v1/events   the updates as Server-Sent Events: "event: KIND", "data: ask.Update"
//	POST /v1/answer   an ask.Answer: 200 ask.Sent, 409 ask.Refusal, 400 a bad request
//
// Errors other than a refusal are {"error": "…"}; GET takes HEAD too. Who
// may connect is the listener's business (see Serve). It serves until it
// is stopped: event streams then end, and requests that come after are
// refused.
type api struct {
	desk     ask.Desk
	lim      limits
	stopping chan struct{}
	replies  inflight
}

func newAPI(desk ask.Desk, lim limits) *api {
	return &api{desk: desk, lim: lim, stopping: make(chan struct{}), replies: inflight{idle: make(chan struct{})}}
}

// serve bounds the time each reply may take to be written, and serves r by
// its route.
func (a *api) serve(w *replyWriter, r *request) {
	_ = w.setWriteDeadline(time.Now().Add(a.lim.write))
	get := r.method == "GET" || r.method == "HEAD"
	switch r.path {
	case "/v1/session", "/v1/screen", "/v1/events":
		if !get {
			notAllowed(w, "GET, HEAD")
			return
		}
	case "/v1/answer":
		if r.method != "POST" {
			notAllowed(w, "POST")
			return
		}
	default:
		writeText(w, statusNotFound, "404 page not found")
		return
	}
	switch r.path {
	case "/v1/session":
		a.reply(w, unavailable, func() (int, any) { return statusOK, a.desk.Session() })
	case "/v1/screen":
		a.reply(w, unavailable, func() (int, any) { return statusOK, a.desk.Screen() })
	case "/v1/events":
		a.serveEvents(w, r)
	case "/v1/answer":
		a.serveAnswer(w, r)
	}
}

// notAllowed replies 405 to a method the route does not take.
func notAllowed(w *replyWriter, allow string) {
	w.header.Set("Allow", allow)
	writeText(w, statusMethodNotAllowed, "Method Not Allowed")
}

// writeText replies status with a line of text.
func writeText(w *replyWriter, status int, text string) {
	h := w.header
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(text)+1))
	w.writeHeader(status)
	_, _ = io.WriteString(w, text+"\n")
}

// unavailable is the reply of a request that comes once the api stopped.
func unavailable() (int, any) {
	return statusServiceUnavailable, apiError{Error: "the run has ended"}
}

// endedRefusal is the reply of an answer that comes once the api stopped.
func endedRefusal() (int, any) {
	return statusConflict, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
}

// reply writes what make returns, or once the api stopped what stopped
// returns. While make runs, stop waits for it.
func (a *api) reply(w *replyWriter, stopped, make func() (int, any)) {
	if !a.replies.begin() {
		status, v := stopped()
		writeJSON(w, status, v)
		return
	}
	defer a.replies.end()
	status, v := make()
	writeJSON(w, status, v)
	// Out before the reply counts as done: the server closes its connections
	// once none is under way, and a reply still in its buffer would be lost.
	_ = w.flush()
}

// stop ends the event streams and refuses what comes after; it waits up to
// grace for the replies under way (an answer being typed gets its reply).
func (a *api) stop(grace time.Duration) {
	close(a.stopping)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-a.replies.close():
	case <-t.C:
	}
}

// serveAnswer reads an answer, bounded in size, and hands it to the desk.
// Only once the whole answer is read is it a reply under way: a client that
// sends its body slowly holds up nothing.
func (a *api) serveAnswer(w *replyWriter, r *request) {
	ans, err := decodeAnswer(&maxBytes{r: r.body, left: maxAnswerBody})
	if err != nil {
		writeJSON(w, statusBadRequest, apiError{Error: err.Error()})
		return
	}
	if ans.Channel == "" {
		ans.Channel = ask.ChannelCLI
	}
	if ans.By == "" {
		ans.By = userName()
	}
	a.reply(w, endedRefusal, func() (int, any) {
		sent, err := a.desk.Answer(r.ctx, ans)
		var refusal *ask.Refusal
		switch {
		case errors.As(err, &refusal):
			return statusConflict, refusal
		case err != nil:
			return statusInternalServerError, apiError{Error: err.Error()}
		}
		return statusOK, sent
	})
}

// inflight counts the replies under way until it is closed.
type inflight struct {
	mu      sync.Mutex
	n       int
	closing bool
	idle    chan struct{}
}

// begin counts a reply, unless closed.
func (f *inflight) begin() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return false
	}
	f.n++
	return true
}

func (f *inflight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.closing && f.n == 0 {
		close(f.idle)
	}
}

// close refuses new replies; the channel is closed once none is under way.
func (f *inflight) close() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closing {
		f.closing = true
		if f.n == 0 {
			close(f.idle)
		}
	}
	return f.idle
}

// errTooLong is the read of a body past its bound.
var errTooLong = errors.New("the body is too long")

// maxBytes reads r until left bytes were read, then fails with errTooLong.
type maxBytes struct {
	r    io.Reader
	left int64
}

func (m *maxBytes) Read(p []byte) (int, error) {
	if m.left <= 0 {
		// One byte more tells a body of exactly the bound from a longer one.
		var one [1]byte
		if n, _ := m.r.Read(one[:]); n > 0 {
			return 0, errTooLong
		}
		return 0, io.EOF
	}
	if int64(len(p)) > m.left {
		p = p[:m.left]
	}
	n, err := m.r.Read(p)
	m.left -= int64(n)
	return n, err
}

// decodeAnswer reads exactly one JSON answer, with no field the API does not
// know.
func decodeAnswer(body io.Reader) (ask.Answer, error) {
	var a ask.Answer
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		if errors.Is(err, errTooLong) {
			return a, fmt.Errorf("the answer is longer than %d bytes", maxAnswerBody)
		}
		return a, fmt.Errorf("the answer is no JSON answer: %w", err)
	}
	if dec.More() {
		return a, errors.New("the answer is followed by more than white space")
	}
	if a.Question == "" {
		return a, errors.New(`the answer names no question ("question": ID)`)
	}
	return a, nil
}

// serveEvents streams the desk's updates until the run ends or the client
// goes or the api stops. Each write has a.lim.write to finish; a comment keeps a quiet stream
// alive.
func (a *api) serveEvents(w *replyWriter, r *request) {
	// A stream counts as a reply under way: as the api stops, it sends what
	// the run told before it stopped, and stop waits for that.
	if !a.replies.begin() {
		status, v := unavailable()
		writeJSON(w, status, v)
		return
	}
	defer a.replies.end()
	// The request has been read; what the client sends from now on is
	// nothing but its going away.
	_ = w.setReadDeadline(time.Time{})
	h := w.header
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	updates := a.desk.Watch(r.ctx)
	send := func(b []byte) bool {
		if w.setWriteDeadline(time.Now().Add(a.lim.write)) != nil {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		return w.flush() == nil
	}
	if !send([]byte(": clai session events\n\n")) {
		return
	}
	tick := time.NewTicker(a.lim.keepAlive)
	defer tick.Stop()
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				return
			}
			if !send(sseEvent(u)) {
				return
			}
		case <-tick.C:
			if !send([]byte(": keep-alive\n\n")) {
				return
			}
		case <-r.ctx.Done():
			return
		case <-a.stopping:
			// What the run told before it stopped (its end) still goes out.
			for {
				select {
				case u, ok := <-updates:
					if !ok || !send(sseEvent(u)) {
						return
					}
				default:
					return
				}
			}
		}
	}
}

// sseEvent is u as a Server-Sent Event: its kind, and its JSON on one line.
func sseEvent(u ask.Update) []byte {
	data, err := json.Marshal(u)
	if err != nil {
		data, _ = json.Marshal(apiError{Error: err.Error()})
	}
	b := make([]byte, 0, len(data)+len(u.Kind)+20)
	b = append(b, "event: "...)
	b = append(b, sanitizeLine(u.Kind)...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// sanitizeLine drops the line breaks that would end an SSE field early.
func sanitizeLine(s string) string {
	out := []byte(s)[:0:0]
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' && s[i] != '\r' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// apiError is the body of an error that is no refusal.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w *replyWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = statusInternalServerError
		body, _ = json.Marshal(apiError{Error: err.Error()})
	}
	body = append(body, '\n')
	h := w.header
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	// A length, not chunks: once flushed, the reply is whole on the wire.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.writeHeader(status)
	_, _ = w.Write(body)
}

// userName is who answers when the answer does not say: this user, the
// only one who may connect.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// Server serves one session's API on a listener that only lets this user's
// processes in.
type Server struct {
	ln     net.Listener
	api    *api
	lim    limits
	conns  conns
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// Serve serves desk on ln, in goroutines of its own: only processes of this
// user may connect, at most a few dozen at once, and every request is bounded
// in size and time. refused, if not nil, is told of each connection refused.
func Serve(ln net.Listener, desk ask.Desk, refused func(error)) *Server {
	return serveAs(ln, desk, refused, os.Getuid(), serveLimits())
}

// serveAs serves desk to the processes of uid within lim.
func serveAs(ln net.Listener, desk ask.Desk, refused func(error), uid int, lim limits) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		api:    newAPI(desk, lim),
		lim:    lim,
		ln:     peer.Listen(ln, uid, lim.conns, refused),
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go s.serve()
	return s
}

// Close stops serving at once: no new connection is taken, event streams
// end, the replies under way get up to two seconds to be written (an
// answer being typed gets its reply), then every connection is closed, also
// those of clients still sending their request.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.api.stop(s.lim.grace)
	s.cancel()
	s.conns.closeAll()
	<-s.done
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}
