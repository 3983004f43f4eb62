package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/suggest/store"
)

// liveWithin is how recent a command must be for the work tree seen now to
// be the one it left: an older event (a spool read late, an import) is
// stored without one.
const liveWithin = 30 * time.Second

// treeAfter is the state the command that ended at `at` left root's work
// tree in, when it ended a moment ago; nil when it cannot be told. A branch
// name that holds a secret is not kept. The tree of an older command is
// not read, only marked as changed, so that the next suggestion reads it
// again. read holds the trees read for the batch so far, by root: git is
// asked once a tree a batch.
func (d *server) treeAfter(ctx context.Context, root string, at time.Time, read map[string]*store.TreeState) *store.TreeState {
	if age := d.cfg.Clock.Now().Sub(at); age > liveWithin || age < -liveWithin {
		d.trees.mark(root)
		return nil
	}
	if t, ok := read[root]; ok {
		return t
	}
	var t *store.TreeState
	if st, ok := d.cfg.Understander.WorkTree(ctx, root, true); ok {
		t = &store.TreeState{Branch: st.Branch, Dirty: st.Dirty}
		if d.cfg.Secrets.Secret(t.Branch) {
			t.Branch = ""
		}
	} else {
		d.trees.mark(root)
	}
	read[root] = t
	return t
}

// maxMarked bounds the work trees marked as changed; past it, every tree is
// taken as changed.
const maxMarked = 512

// treeMarks are the work trees a command may have changed since they were
// last read.
type treeMarks struct {
	mu     sync.Mutex
	marked map[string]bool
	all    bool // more were marked than kept
}

// mark notes that root's work tree may have changed.
func (m *treeMarks) mark(root string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.marked == nil {
		m.marked = map[string]bool{}
	}
	if len(m.marked) >= maxMarked {
		clear(m.marked)
		m.all = true
	}
	m.marked[root] = true
}

// take reports whether root's work tree may have changed since it was last
// read, and forgets the mark: the caller reads it now.
func (m *treeMarks) take(root string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	changed := m.marked[root] || m.all
	delete(m.marked, root)
	if m.all && len(m.marked) == 0 {
		m.all = false
	}
	return changed
}
