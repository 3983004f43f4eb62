package sessions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/clai-sh/clai/runner/ask"
)

// Source is the sessions of a registry as a dashboard reaches them: each
// session through its socket's API. Its errors for a session whose run has
// ended are marked ask.ErrEnded. It is safe for concurrent use.
type Source struct {
	reg *Registry

	mu sync.Mutex
	// reached are the sessions the last List found, by id: each one's
	// socket and its client, made once for the socket.
	reached map[string]reached
}

// reached is where a session is reached: its socket, and the client of it.
type reached struct {
	socket string
	client *Client
}

// NewSource returns the Source of the sessions of reg.
func NewSource(reg *Registry) *Source {
	return &Source{reg: reg, reached: map[string]reached{}}
}

// List lists the registry's sessions, and remembers where each is reached.
func (s *Source) List(ctx context.Context) ([]ask.Session, error) {
	found, err := s.reg.List(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]ask.Session, 0, len(found))
	s.mu.Lock()
	defer s.mu.Unlock()
	now := make(map[string]reached, len(found))
	for _, f := range found {
		if f.Err != nil && ended(f.Socket, f.Err) {
			// Its entry outlives its socket for a moment.
			continue
		}
		list = append(list, f.Session)
		r, ok := s.reached[f.Session.ID]
		if !ok || r.socket != f.Socket {
			r = reached{socket: f.Socket, client: NewClient(f.Socket)}
		}
		now[f.Session.ID] = r
	}
	s.reached = now
	return list, nil
}

// ended reports whether err, of a request to the session at socket, says
// that its run has ended: the socket is gone, or nobody listens on it.
func ended(socket string, err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
		return true
	}
	_, serr := os.Lstat(socket)
	return errors.Is(serr, fs.ErrNotExist)
}

// client is session id's socket and its client.
func (s *Source) client(id string) (reached, error) {
	s.mu.Lock()
	r, ok := s.reached[id]
	s.mu.Unlock()
	if !ok {
		// The last listing left it out: it has ended.
		return reached{}, fmt.Errorf("%w: session %q is no longer listed", ask.ErrEnded, id)
	}
	return r, nil
}

// endedOr is err, marked ask.ErrEnded when it says the run at socket ended.
func endedOr(socket string, err error) error {
	if err != nil && ended(socket, err) {
		return fmt.Errorf("%w: %w", ask.ErrEnded, err)
	}
	return err
}

// Screen asks session id for its screen.
func (s *Source) Screen(ctx context.Context, id string) (ask.Screen, error) {
	r, err := s.client(id)
	if err != nil {
		return ask.Screen{}, err
	}
	sc, err := r.client.Screen(ctx)
	return sc, endedOr(r.socket, err)
}

// Events follows session id's updates.
func (s *Source) Events(ctx context.Context, id string, fn func(ask.Update) bool) error {
	r, err := s.client(id)
	if err != nil {
		return err
	}
	return endedOr(r.socket, r.client.Events(ctx, fn))
}

// Answer posts a to session id; an answer to a run that has ended is
// refused as the run would refuse it.
func (s *Source) Answer(ctx context.Context, id string, a ask.Answer) (ask.Sent, error) {
	r, err := s.client(id)
	if err == nil {
		var sent ask.Sent
		sent, err = r.client.Answer(ctx, a)
		err = endedOr(r.socket, err)
		if err == nil {
			return sent, nil
		}
	}
	if errors.Is(err, ask.ErrEnded) {
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
	}
	return ask.Sent{}, err
}
