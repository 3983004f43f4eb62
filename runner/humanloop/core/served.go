package core

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/sessions"
)

// RegisterAfter is how long a run lives before the server registers it,
// unless Registered asks for it sooner. A run that ends sooner is never
// listed (nobody could have acted on it) and pays for no session server:
// a script's short run starts and ends that much faster
// (docs/performance.md#start-up).
const RegisterAfter = 100 * time.Millisecond

// Server registers a run in the sessions folder and serves its desk from
// goroutines of its own: the run never waits for it.
type Server struct {
	reg   *sessions.Registry
	after time.Duration

	mu      sync.Mutex
	started bool
	now     chan struct{} // closed: register now
	ended   chan struct{} // closed: the run is over
	done    chan struct{} // closed: registered, failed, or never will be
	entry   *sessions.Entry
	err     error
}

// NewServer opens the sessions folder dir ("" is the user's). One that
// cannot be used is said on warn, and the run goes on without being
// registered.
func NewServer(dir string, warn io.Writer) *Server {
	reg, err := sessions.Open(dir)
	if err != nil {
		fmt.Fprintf(warn, "clai: warning: this run cannot be seen or answered from elsewhere: %v\n", err)
	}
	return &Server{reg: reg, after: RegisterAfter, now: make(chan struct{}), ended: make(chan struct{}), done: make(chan struct{})}
}

// Ready registers and serves d once the run has lived RegisterAfter, or at
// once when Registered asks; it returns at once. It is how a run hands the
// server its desk (runner.WithDesk).
func (s *Server) Ready(d ask.Desk) {
	if s.reg == nil {
		return
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	go func() {
		defer close(s.done)
		t := time.NewTimer(s.after)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.now:
		case <-s.ended:
			return
		}
		s.entry, s.err = s.reg.Register(d, nil)
	}()
}

// Registered registers the run now if it is not yet, waits until it is, and
// reports whether it is: whether clai answer can reach it. It is called
// after Ready.
func (s *Server) Registered() bool {
	s.mu.Lock()
	started := s.started
	if started {
		select {
		case <-s.now:
		default:
			close(s.now)
		}
	}
	s.mu.Unlock()
	if !started {
		return false
	}
	<-s.done
	return s.entry != nil && s.err == nil
}

// Close stops serving and removes the run's entry, once the run is over. A
// registration that failed is said on warn then, when the terminal is the
// person's again.
func (s *Server) Close(warn io.Writer) {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if !started {
		return
	}
	close(s.ended)
	<-s.done
	if s.err != nil {
		fmt.Fprintf(warn, "clai: warning: this run could not be seen or answered from elsewhere: %v\n", s.err)
		return
	}
	if s.entry != nil {
		_ = s.entry.Close()
	}
}
