package core

import (
	"fmt"
	"io"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/sessions"
)

// Server registers a run in the sessions folder and serves its desk from
// goroutines of its own: the run never waits for it.
type Server struct {
	reg     *sessions.Registry
	started bool
	done    chan struct{}
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
	return &Server{reg: reg, done: make(chan struct{})}
}

// Ready registers and serves d; it returns at once. It is how a run hands
// the server its desk (runner.WithDesk).
func (s *Server) Ready(d ask.Desk) {
	if s.reg == nil {
		return
	}
	s.started = true
	go func() {
		defer close(s.done)
		s.entry, s.err = s.reg.Register(d, nil)
	}()
}

// Registered waits until the run is registered and reports whether it is:
// whether clai answer can reach it. It is called after Ready.
func (s *Server) Registered() bool {
	if !s.started {
		return false
	}
	<-s.done
	return s.err == nil
}

// Close stops serving and removes the run's entry, once the run is over. A
// registration that failed is said on warn then, when the terminal is the
// person's again.
func (s *Server) Close(warn io.Writer) {
	if !s.started {
		return
	}
	<-s.done
	if s.err != nil {
		fmt.Fprintf(warn, "clai: warning: this run could not be seen or answered from elsewhere: %v\n", s.err)
		return
	}
	_ = s.entry.Close()
}
