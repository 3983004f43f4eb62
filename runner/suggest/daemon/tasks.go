package daemon

import (
	"context"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/suggest/store"
)

// tasksFresh is how long the tasks found in a repository are taken as they
// are before its files are read again.
const tasksFresh = time.Minute

// maxCachedRepos bounds the task cache; past it the cache starts afresh.
const maxCachedRepos = 256

// taskCache keeps the tasks last found in each repository.
type taskCache struct {
	clock store.Clock
	mu    sync.Mutex
	repos map[string]cachedTasks
}

type cachedTasks struct {
	tasks []store.Task
	at    time.Time
}

func newTaskCache(clock store.Clock) *taskCache {
	return &taskCache{clock: clock, repos: map[string]cachedTasks{}}
}

// fresh returns the tasks of repo when they were found lately.
func (c *taskCache) fresh(repo string) ([]store.Task, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.repos[repo]
	if !ok || c.clock.Now().Sub(t.at) >= tasksFresh {
		return nil, false
	}
	return t.tasks, true
}

// put records the tasks of repo found now.
func (c *taskCache) put(repo string, tasks []store.Task) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.repos) >= maxCachedRepos {
		clear(c.repos)
	}
	c.repos[repo] = cachedTasks{tasks: tasks, at: c.clock.Now()}
}

// tasksOf returns the tasks of the repository repo at root: the ones found
// lately, else those read now from its files, which the store then records.
func (d *server) tasksOf(ctx context.Context, repo, root string) []store.Task {
	if repo == "" || root == "" {
		return nil
	}
	if tasks, ok := d.tasks.fresh(repo); ok {
		return tasks
	}
	tasks, err := d.cfg.Understander.Tasks(ctx, root)
	if err != nil {
		d.logf("project tasks of %s: %v", root, err)
	}
	d.tasks.put(repo, tasks)
	err = d.writer.Do(context.Background(), func(ctx context.Context) error {
		return d.store.SetTasks(ctx, repo, tasks, d.cfg.Clock.Now())
	})
	if err != nil {
		d.logf("project tasks of %s: %v", root, err)
	}
	return tasks
}
