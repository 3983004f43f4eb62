// Package hooktest is a stand-in for the suggestion daemon, for tests and
// benchmarks of the shell hooks: a real HTTP server on a Unix socket that
// collects the events posted to /ingest and those the hooks append to the
// spool next to its socket, and, when asked, assigns session ids the way the
// daemon does, in session files next to its socket.
package hooktest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/suggest/hookproto"
)

// Server collects the events posted to it.
type Server struct {
	// Socket is the path of its socket.
	Socket string

	srv    *http.Server
	ln     net.Listener
	assign func(hookproto.Event) string
	spool  *hookproto.Spool
	stop   chan struct{}
	polled chan struct{}

	mu       sync.Mutex
	dropping string // why POST /ingest drops what it is sent, when set
	events   []hookproto.Event
	bad      []string
	arrived  chan struct{} // closed and replaced at each event
}

// Start serves on a new Unix socket at path. With assign set, each
// session_start event gets the session id assign returns for it, written to
// the session file of its shell in the socket's folder before the request is
// answered.
func Start(path string, assign func(hookproto.Event) string) (*Server, error) {
	ln, err := hookproto.UnixSocket{Path: path}.Listen()
	if err != nil {
		return nil, fmt.Errorf("hooktest: %w", err)
	}
	s := &Server{Socket: path, ln: ln, assign: assign, arrived: make(chan struct{}),
		spool: &hookproto.Spool{Dir: filepath.Dir(path)}, stop: make(chan struct{}), polled: make(chan struct{})}
	if err := s.spool.Prepare(); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("hooktest: %w", err)
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.ingest)}
	go func() { _ = s.srv.Serve(ln) }()
	go s.pollSpool()
	return s, nil
}

// TakeSpool reads the spool at once, as the daemon does before it answers,
// recording its events and what it skipped.
func (s *Server) TakeSpool() {
	st, err := s.spool.Take(func(e hookproto.Event) { s.record(e, "") })
	if err != nil {
		s.record(hookproto.Event{}, err.Error())
	}
	if n := st.Bad + st.TooLong + st.Newer; n > 0 {
		s.record(hookproto.Event{}, fmt.Sprintf("spool: %+v", st))
	}
}

// spoolEvery is how often the server reads the spool.
const spoolEvery = 5 * time.Millisecond

// pollSpool reads the spool until the server is closed.
func (s *Server) pollSpool() {
	defer close(s.polled)
	tick := time.NewTicker(spoolEvery)
	defer tick.Stop()
	for {
		s.TakeSpool()
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// Close stops the server. It may be called more than once.
func (s *Server) Close() error {
	s.mu.Lock()
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.mu.Unlock()
	<-s.polled
	return s.srv.Close()
}

// Drop makes POST /ingest drop the events it is sent, as the daemon does
// when its database cannot be written, and say why; "" takes them again.
func (s *Server) Drop(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropping = why
}

// ingest reads the lines of a POST /ingest and answers as the daemon does.
// The body is read whole even when the client is gone: the hooks close the
// connection once they have written.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != hookproto.IngestPath {
		s.record(hookproto.Event{}, fmt.Sprintf("request %s %s", r.Method, r.URL.Path))
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	dropping := s.dropping
	s.mu.Unlock()
	var reply hookproto.IngestReply
	defer func() { answer(w, reply) }()
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(nil, hookproto.MaxLine+1)
	for sc.Scan() {
		e, err := hookproto.ParseLine(sc.Bytes())
		if err != nil {
			reply.Skipped++
			s.record(e, err.Error())
			continue
		}
		if dropping != "" {
			reply.Dropped++
			reply.Error = dropping
			continue
		}
		reply.Accepted++
		if e.Type == hookproto.TypeSessionStart && s.assign != nil {
			if err := hookproto.WriteSessionFile(filepath.Dir(s.Socket), e.PID, s.assign(e)); err != nil {
				s.record(e, err.Error())
			}
		}
		s.record(e, "")
	}
	if err := sc.Err(); err != nil {
		s.record(hookproto.Event{}, "reading the body: "+err.Error())
	}
}

// answer writes reply as the daemon does: 503 with Retry-After when it took
// nothing and dropped some.
func answer(w http.ResponseWriter, reply hookproto.IngestReply) {
	w.Header().Set("Content-Type", "application/json")
	if reply.Accepted == 0 && reply.Dropped > 0 {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(reply)
}

func (s *Server) record(e hookproto.Event, bad string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bad != "" {
		s.bad = append(s.bad, bad)
	} else {
		s.events = append(s.events, e)
	}
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// Events returns the events received so far, in order of arrival.
func (s *Server) Events() []hookproto.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]hookproto.Event(nil), s.events...)
}

// Bad returns what the server could not take: lines it could not parse,
// requests to other paths.
func (s *Server) Bad() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bad...)
}

// WaitFor waits until ok holds of the events received, or ctx ends; it
// returns the events either way, and ctx's error in the second case.
func (s *Server) WaitFor(ctx context.Context, ok func([]hookproto.Event) bool) ([]hookproto.Event, error) {
	for {
		s.mu.Lock()
		events, arrived := append([]hookproto.Event(nil), s.events...), s.arrived
		s.mu.Unlock()
		if ok(events) {
			return events, nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return events, errors.Join(errors.New("hooktest: the events awaited did not come"), ctx.Err())
		}
	}
}

// Commands returns the command lines of the command events among events.
func Commands(events []hookproto.Event) []string {
	var cmds []string
	for _, e := range events {
		if e.Type == hookproto.TypeCommand {
			cmds = append(cmds, e.Cmd)
		}
	}
	return cmds
}
