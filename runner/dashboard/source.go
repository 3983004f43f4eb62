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
	// clients are the clients of the sessions the last List found, by id;
	// each keeps its connections for the next request.
	clients map[string]*sessions.Client
	sockets map[string]string
}

// FromRegistry returns the Source of the sessions of reg.
func FromRegistry(reg *sessions.Registry) Source {
	return &registrySource{reg: reg, clients: map[string]*sessions.Client{}, sockets: map[string]string{}}
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
	clients := make(map[string]*sessions.Client, len(found))
	sockets := make(map[string]string, len(found))
	for _, f := range found {
		list = append(list, f.Session)
		c, ok := s.clients[f.Session.ID]
		if !ok || s.sockets[f.Session.ID] != f.Socket {
			c = sessions.NewClient(f.Socket)
		}
		clients[f.Session.ID], sockets[f.Session.ID] = c, f.Socket
	}
	s.clients, s.sockets = clients, sockets
	return list, nil
}

// client is the client of session id's socket.
func (s *registrySource) client(id string) (*sessions.Client, error) {
	s.mu.Lock()
	c, ok := s.clients[id]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no session %q runs", id)
	}
	return c, nil
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
