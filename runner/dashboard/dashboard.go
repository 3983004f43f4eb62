// Package dashboard serves one web page for every session of this user on
// this machine: each with its state, its live screen in colour, its open
// question with a button per option (a check box each, where several may be
// chosen) and a field for text, and its recent decisions; a question is answered from the page through the session's own
// answer path (see docs/questions.md, "The dashboard"). The page, its script
// and its style are embedded; every request must carry the dashboard's
// token, and come for the address it listens on from a page of its own.
package dashboard

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// Source is where the dashboard finds the sessions and reaches each of
// them. Its methods may be called from any goroutine.
type Source interface {
	// List returns the sessions running now, each as it stands.
	List(ctx context.Context) ([]ask.Session, error)
	// Screen returns what session id's program shows now.
	Screen(ctx context.Context, id string) (ask.Screen, error)
	// Events calls fn with each update of session id until fn returns
	// false, ctx ends or the session's stream ends.
	Events(ctx context.Context, id string, fn func(ask.Update) bool) error
	// Answer answers session id's question; a refused answer is an
	// *ask.Refusal.
	Answer(ctx context.Context, id string, a ask.Answer) (ask.Sent, error)
}

// Config is how a dashboard is served.
type Config struct {
	// Token is the secret every request must carry (NewToken makes one).
	Token string
	// Port is the port the dashboard listens on: a request's Host must
	// name it.
	Port int
	// Exposed is set when the dashboard listens beyond loopback: a Host
	// may then also be an IP address or this machine's name.
	Exposed bool
	// Hostname is this machine's name, accepted as a Host when Exposed.
	Hostname string
	// User is who answers from the page (the answer's By).
	User string
	// Logf, if not nil, is told of what goes wrong with a session.
	Logf func(format string, args ...any)
}

// Server is a dashboard: its page and API (Handler) and the watching of
// the sessions (Run).
type Server struct {
	cfg Config
	src Source
	hub *hub
}

// New returns a dashboard of the sessions src finds.
func New(src Source, cfg Config) *Server {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Server{cfg: cfg, src: src, hub: newHub(src, cfg.Logf)}
}

// Run watches the sessions for the page until ctx ends: it looks for new
// ones every second and follows each one's updates as they happen.
func (s *Server) Run(ctx context.Context) { s.hub.run(ctx) }

// NewToken returns a fresh random token: 32 bytes, URL-safe.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("dashboard token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// The bounds of what the dashboard's server takes from a browser.
const (
	maxHeaderBytes    = 16 << 10
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	idleTimeout       = 60 * time.Second
	shutdownGrace     = 2 * time.Second
)

// Serve serves the dashboard on ln, and watches the sessions, until ctx
// ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		MaxHeaderBytes:    maxHeaderBytes,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go s.Run(watchCtx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("dashboard: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("dashboard: %w", err)
	}
	_ = srv.Close()
	return nil
}
