package dashboard

import (
	"context"
	"fmt"
	"sync"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/sessions"
)

// registrySource is a Source over the registry of this user's sessions:
// each session is reached through its socket's API.
type registrySource struct {
	reg *sessions.Registry

	mu sync.Mutex
	// reached are the sessions the last List found, by id: each one's
	// socket and its client, made once for the socket.
	reached map[string]reached
}

// reached is where a session is reached: its socket, and the client of it.
type reached struct {
	socket string
	client *sessions.Client
}

// FromRegistry returns the Source of the sessions of reg.
func FromRegistry(reg *sessions.Registry) Source {
	return &registrySource{reg: reg, reached: map[string]reached{}}
}

// List lists the registry's sessions, and remembers where each is reached.
func (s *registrySource) List(ctx context.Context) ([]ask.Session, error) {
	found, err := s.reg.List(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]ask.Session, 0, len(found))
	s.mu.Lock()
	defer s.mu.Unlock()
	now := make(map[string]reached, len(found))
	for _, f := range found {
		list = append(list, f.Session)
		r, ok := s.reached[f.Session.ID]
		if !ok || r.socket != f.Socket {
			r = reached{socket: f.Socket, client: sessions.NewClient(f.Socket)}
		}
		now[f.Session.ID] = r
	}
	s.reached = now
	return list, nil
}

// client is the client of session id's socket.
func (s *registrySource) client(id string) (*sessions.Client, error) {
	s.mu.Lock()
	r, ok := s.reached[id]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no session %q runs", id)
	}
	return r.client, nil
}

// Screen asks session id for its screen.
func (s *registrySource) Screen(ctx context.Context, id string) (ask.Screen, error) {
	c, err := s.client(id)
	if err != nil {
		return ask.Screen{}, err
	}
	return c.Screen(ctx)
}

// Events follows session id's updates.
func (s *registrySource) Events(ctx context.Context, id string, fn func(ask.Update) bool) error {
	c, err := s.client(id)
	if err != nil {
		return err
	}
	return c.Events(ctx, fn)
}

// Answer posts a to session id.
func (s *registrySource) Answer(ctx context.Context, id string, a ask.Answer) (ask.Sent, error) {
	c, err := s.client(id)
	if err != nil {
		return ask.Sent{}, err
	}
	return c.Answer(ctx, a)
}
