package store

import (
	"cmp"
	"slices"
	"sync"
	"unsafe"
)

// The bounds of the recent commands kept in memory (see recentCache).
const (
	// maxRecentRepos is how many repositories' latest commands are kept,
	// the least recently asked of dropped first.
	maxRecentRepos = 64
	// maxRecentDepth is the most commands kept of a repository: RecentUses
	// asked for more goes to the database each time.
	maxRecentDepth = 1000
	// maxRecentBytes bounds the memory of the commands kept, counted as
	// recentRepo.bytes counts it; past it the least recently asked
	// repositories are dropped, the one just asked of too when it alone is
	// bigger.
	maxRecentBytes = 4 << 20
)

// rowSize is the size of a recentRow, its strings' bytes aside.
const rowSize = int(unsafe.Sizeof(recentRow{}))

// recentRow is a command event as RecentUses reads it: its template, its
// args as stored and decoded, and what orders it.
type recentRow struct {
	template string
	// args is the column as stored (a JSON array); decoded is decodeArgs
	// of it, never changed: each answer has a copy.
	args    string
	decoded []string
	at, id  int64
}

// newerFirst orders rows as RecentUses' query does: ts_ms DESC, id DESC.
func newerFirst(a, b recentRow) int {
	if c := cmp.Compare(b.at, a.at); c != 0 {
		return c
	}
	return cmp.Compare(b.id, a.id)
}

// payload is the bytes a row's strings hold: its template, its args and
// the decoded args with their headers.
func (r *recentRow) payload() int {
	n := len(r.template) + len(r.args)
	for _, a := range r.decoded {
		n += int(unsafe.Sizeof(a)) + len(a)
	}
	return n
}

// recentRepo is the latest command events of one repository, newest first:
// the first limit rows of RecentUses' query, or all of the repository's when
// it has fewer.
type recentRepo struct {
	rows  []recentRow
	limit int
	// payload sums the rows' payloads.
	payload int
	// used is the cache's tick when the repository was last asked of.
	used uint64
}

// bytes is the memory the rows hold: their slice, to its capacity, and
// their strings.
func (p *recentRepo) bytes() int { return cap(p.rows)*rowSize + p.payload }

// insert puts r in its place among the rows, unless it is there already or
// older than all of the limit kept; it drops the oldest beyond the limit.
func (p *recentRepo) insert(r recentRow) {
	i, found := slices.BinarySearchFunc(p.rows, r, newerFirst)
	if found || i >= p.limit {
		return
	}
	p.rows = slices.Insert(p.rows, i, r)
	p.payload += r.payload()
	for len(p.rows) > p.limit {
		p.payload -= p.rows[len(p.rows)-1].payload()
		p.rows[len(p.rows)-1] = recentRow{}
		p.rows = p.rows[:len(p.rows)-1]
	}
}

// recentCache keeps in memory the latest command events of the
// repositories RecentUses was asked of lately, so that a suggestion request
// reads no rows of the database. It is filled from RecentUses' query on the
// first ask for a repository, kept up to date by every batch of commands
// committed, and dropped whole by every other write of the command events
// (Forget, Purge, Import, RebuildAggregates, a failed write): a forgotten
// command is never offered from it.
//
// Its memory is bounded: at most maxRecentRepos repositories, maxRecentDepth
// rows each, and maxRecentBytes in all. It is safe for concurrent use.
type recentCache struct {
	// maxBytes is maxRecentBytes, less in tests.
	maxBytes int

	mu    sync.Mutex
	repos map[string]*recentRepo
	bytes int
	tick  uint64
	// epoch changes with every change of the command events the cache
	// heard of: a fill read from the database before one is not kept.
	epoch uint64
}

func newRecentCache() *recentCache {
	return &recentCache{maxBytes: maxRecentBytes, repos: map[string]*recentRepo{}}
}

// uses is RecentUses answered from memory, and whether it could be: false
// when the repository is not kept, fewer than n of its rows are, or n is
// not positive (a negative limit is none to the query).
func (c *recentCache) uses(repoKey string, n, perTemplate int) (map[string]*Recent, bool) {
	if n <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.repos[repoKey]
	if p == nil || n > p.limit {
		return nil, false
	}
	c.tick++
	p.used = c.tick
	return usesOf(p.rows[:min(n, len(p.rows))], perTemplate), true
}

// begin is the epoch a fill reads the database in.
func (c *recentCache) begin() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// fill keeps rows, the answer of RecentUses' query for repoKey with a limit
// of n read in epoch, unless the command events changed since or n is over
// maxRecentDepth.
func (c *recentCache) fill(repoKey string, n int, rows []recentRow, epoch uint64) {
	if n <= 0 || n > maxRecentDepth {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if old := c.repos[repoKey]; old != nil {
		c.bytes -= old.bytes()
		delete(c.repos, repoKey)
	}
	c.tick++
	p := &recentRepo{rows: slices.Clone(rows), limit: n, used: c.tick}
	for i := range p.rows {
		p.payload += p.rows[i].payload()
	}
	c.repos[repoKey] = p
	c.bytes += p.bytes()
	c.evict()
}

// add puts the rows of commands just committed, by repository, in their
// place among the rows kept.
func (c *recentCache) add(rows map[string][]recentRow) {
	if len(rows) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for repoKey, rs := range rows {
		p := c.repos[repoKey]
		if p == nil {
			continue
		}
		c.bytes -= p.bytes()
		for _, r := range rs {
			p.insert(r)
		}
		c.bytes += p.bytes()
	}
	c.evict()
}

// drop forgets every row kept.
func (c *recentCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	clear(c.repos)
	c.bytes = 0
}

// evict drops the least recently asked repositories while the cache holds
// too many or too big a sum of rows.
func (c *recentCache) evict() {
	for len(c.repos) > 0 && (len(c.repos) > maxRecentRepos || c.bytes > c.maxBytes) {
		var oldest string
		var at uint64
		first := true
		for k, p := range c.repos {
			if first || p.used < at {
				oldest, at, first = k, p.used, false
			}
		}
		c.bytes -= c.repos[oldest].bytes()
		delete(c.repos, oldest)
	}
}

// templateArgs is a template with the args of one of its uses, as stored.
type templateArgs struct{ template, args string }

// usesOf is RecentUses' answer read from rows, newest first: each
// template's count, and the first perTemplate distinct args it was used
// with, copied.
func usesOf(rows []recentRow, perTemplate int) map[string]*Recent {
	out := map[string]*Recent{}
	seen := map[templateArgs]bool{}
	for i := range rows {
		r := &rows[i]
		rec := out[r.template]
		if rec == nil {
			rec = &Recent{}
			out[r.template] = rec
		}
		rec.Count++
		key := templateArgs{r.template, r.args}
		if seen[key] || len(rec.Args) >= perTemplate {
			continue
		}
		seen[key] = true
		if r.decoded != nil {
			rec.Args = append(rec.Args, slices.Clone(r.decoded))
		}
	}
	return out
}
