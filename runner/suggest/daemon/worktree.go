package daemon

import (
	"context"
	"time"

	"golang.org/x/sync/singleflight"

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
	group   singleflight.Group
}

// status returns root's work tree when git tells it within c.wait, and
// false when it does not (or fails, or ctx ends first). refresh asks git
// again rather than take the status kept (see gitctx.Resolver.Status).
func (c *statusCalls) status(ctx context.Context, root string, refresh bool) (gitctx.Status, bool) {
	key := "kept\x00" + root
	if refresh {
		key = "fresh\x00" + root
	}
	done := c.group.DoChan(key, func() (any, error) {
		// Not the ask's context: the status runs on when the ask stops
		// waiting, for the next ask to find.
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		return c.git.Status(ctx, root, refresh)
	})
	wait := time.NewTimer(c.wait)
	defer wait.Stop()
	select {
	case r := <-done:
		st, _ := r.Val.(gitctx.Status)
		return st, r.Err == nil
	case <-wait.C:
	case <-ctx.Done():
	}
	return gitctx.Status{}, false
}
