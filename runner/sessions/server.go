package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/user"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// The bounds of what a session's server takes from a client.
const (
	// maxAnswerBody is the largest answer a client may post.
	maxAnswerBody = 64 << 10
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 8 << 10
	// shutdownGrace is how long Close lets requests under way finish.
	shutdownGrace = 2 * time.Second
)

// limits bound the time a client may take, and how many may connect at once.
type limits struct {
	// readHeader and read bound how long a request's headers, and the
	// whole request with its body, may take to arrive.
	readHeader, read time.Duration
	// write bounds each reply, and each event of a stream: a client that
	// stops reading is dropped.
	write time.Duration
	// idle closes a kept-alive connection nobody uses.
	idle time.Duration
	// keepAlive is how often an event stream without events sends a
	// comment, so a client that went away is noticed.
	keepAlive time.Duration
	// conns is how many connections are served at once; more wait in the
	// listen queue until one closes.
	conns int
}

// serveLimits are the limits of every session's server.
var serveLimits = limits{
	readHeader: 5 * time.Second,
	read:       10 * time.Second,
	write:      10 * time.Second,
	idle:       30 * time.Second,
	keepAlive:  15 * time.Second,
	conns:      32,
}

// Handler serves desk's session over HTTP:
//
//	GET  /v1/session  the session (ask.Session)
//	GET  /v1/screen   what the program shows (ask.Screen)
//	GET  /v1/events   the updates as Server-Sent Events: "event: KIND", "data: ask.Update"
//	POST /v1/answer   an ask.Answer: 200 ask.Sent, 409 ask.Refusal, 400 a bad request
//
// Errors other than a refusal are {"error": "…"}. Who may connect is the
// listener's business (see Serve).
func Handler(desk ask.Desk) http.Handler { return handler(desk, serveLimits) }

func handler(desk ask.Desk, lim limits) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/session", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, desk.Session())
	})
	mux.HandleFunc("GET /v1/screen", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, desk.Screen())
	})
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		serveEvents(w, r, desk, lim)
	})
	mux.HandleFunc("POST /v1/answer", func(w http.ResponseWriter, r *http.Request) {
		serveAnswer(w, r, desk)
	})
	return withWriteDeadline(mux, lim.write)
}

// withWriteDeadline bounds the time each reply may take to be written.
func withWriteDeadline(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
		next.ServeHTTP(w, r)
	})
}

// serveAnswer reads an answer, bounded in size, and hands it to the desk.
func serveAnswer(w http.ResponseWriter, r *http.Request, desk ask.Desk) {
	a, err := decodeAnswer(http.MaxBytesReader(w, r.Body, maxAnswerBody))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	if a.Channel == "" {
		a.Channel = ask.ChannelCLI
	}
	if a.By == "" {
		a.By = userName()
	}
	sent, err := desk.Answer(r.Context(), a)
	var refusal *ask.Refusal
	switch {
	case errors.As(err, &refusal):
		writeJSON(w, http.StatusConflict, refusal)
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
	default:
		writeJSON(w, http.StatusOK, sent)
	}
}

// decodeAnswer reads exactly one JSON answer, with no field the API does not
// know.
func decodeAnswer(body io.Reader) (ask.Answer, error) {
	var a ask.Answer
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
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
// goes. Each write has lim.write to finish; a comment keeps a quiet stream
// alive.
func serveEvents(w http.ResponseWriter, r *http.Request, desk ask.Desk, lim limits) {
	rc := http.NewResponseController(w)
	// The request has been read; what the client sends from now on is
	// nothing but its going away.
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	updates := desk.Watch(r.Context())
	send := func(b []byte) bool {
		if rc.SetWriteDeadline(time.Now().Add(lim.write)) != nil {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send([]byte(": clai session events\n\n")) {
		return
	}
	tick := time.NewTicker(lim.keepAlive)
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
		case <-r.Context().Done():
			return
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = json.Marshal(apiError{Error: err.Error()})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
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
	srv *http.Server
	// stop ends the requests under way, event streams first of all.
	stop context.CancelFunc
	done chan struct{}
}

// Serve serves desk on ln, in goroutines of its own: only processes of this
// user may connect, at most a few dozen at once, and every request is bounded
// in size and time. refused, if not nil, is told of each connection refused.
func Serve(ln net.Listener, desk ask.Desk, refused func(error)) *Server {
	return serveAs(ln, desk, refused, os.Getuid(), serveLimits)
}

// serveAs serves desk to the processes of uid within lim.
func serveAs(ln net.Listener, desk ask.Desk, refused func(error), uid int, lim limits) *Server {
	pl := newPeerListener(ln, uid, lim.conns)
	pl.refused = refused
	base, stop := context.WithCancel(context.Background())
	s := &Server{
		srv: &http.Server{
			Handler:           handler(desk, lim),
			ReadHeaderTimeout: lim.readHeader,
			ReadTimeout:       lim.read,
			IdleTimeout:       lim.idle,
			MaxHeaderBytes:    maxHeaderBytes,
			ErrorLog:          log.New(io.Discard, "", 0),
			BaseContext:       func(net.Listener) context.Context { return base },
		},
		stop: stop,
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(pl)
	}()
	return s
}

// Close stops serving: event streams end at once, other requests under way
// get shutdownGrace to finish, then every connection is closed.
func (s *Server) Close() error {
	s.stop()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}
