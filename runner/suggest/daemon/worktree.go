package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/suggest/gitctx"
)

// statusCalls runs the git status of work trees, one at a time a tree, and
// waits for each a moment only: a status git is slow to tell runs on in
// the background, bounded, and fills the resolver's cache for the next
// ask, while the ask that started it goes on without it.
type statusCalls struct {
	git     *gitctx.Resolver
	wait    time.Duration // how long an ask waits
	timeout time.Duration // how long a status may run

	mu       sync.Mutex
	inflight map[statusKey]*statusCall
}

// statusKey names a status being read: a root, and whether it is read anew.
type statusKey struct {
	root    string
	refresh bool
}

// statusCall is a status being read; done is closed once st and err are set.
type statusCall struct {
	done chan struct{}
	st   gitctx.Status
	err  error
}

// status returns root's work tree when git tells it within c.wait, and
// false when it does not (or fails, or ctx ends first).
func (c *statusCalls) status(ctx context.Context, root string, refresh bool) (gitctx.Status, bool) {
	key := statusKey{root, refresh}
	c.mu.Lock()
	call := c.inflight[key]
	if call == nil {
		call = &statusCall{done: make(chan struct{})}
		if c.inflight == nil {
			c.inflight = map[statusKey]*statusCall{}
		}
		c.inflight[key] = call
		go c.read(key, call)
	}
	c.mu.Unlock()
	wait := time.NewTimer(c.wait)
	defer wait.Stop()
	select {
	case <-call.done:
		return call.st, call.err == nil
	case <-wait.C:
	case <-ctx.Done():
	}
	return gitctx.Status{}, false
}

// read reads the status of key into call, within c.timeout.
func (c *statusCalls) read(key statusKey, call *statusCall) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	call.st, call.err = c.git.Status(ctx, key.root, key.refresh)
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	close(call.done)
}
