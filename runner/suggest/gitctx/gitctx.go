// Package gitctx finds the git repository a folder is in and the key the
// suggestion engine files what it learns there under: repo_key, a SHA-256 of
// the repository's remote URL and its root. It asks git itself, and keeps
// each folder's answer for a moment so that a busy shell does not start git
// at every prompt.
package gitctx

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clai-sh/clai/internal/bounded"
	"github.com/clai-sh/clai/internal/procgroup"
)

// Context is what a folder's repository is.
type Context struct {
	// Root is the repository's top level as git gives it, with symlinks
	// resolved: a worktree is a root of its own. It is "" outside a repository.
	Root string
	// Remote is the URL of the remote "origin", else of the first remote by
	// name, without the credentials a URL may carry; "" when there is none.
	Remote string
	// RepoKey is RepoKey(Remote, Root), or "" outside a repository.
	RepoKey string
}

// InRepo reports whether the folder is in a git repository.
func (c Context) InRepo() bool { return c.Root != "" }

// RepoKey is the key of a repository: the hex SHA-256 of the lower-cased
// remote URL, a newline and the canonical root; of "local|" and the root when
// there is no remote. Two clones of one remote in two folders are two keys,
// and a clone keeps its key when its remote URL only changes case.
func RepoKey(remote, root string) string {
	var data string
	if remote == "" {
		data = "local|" + root
	} else {
		data = strings.ToLower(remote) + "\n" + root
	}
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}

// Defaults of a Resolver.
const (
	DefaultTTL     = 2 * time.Second         // how long a folder's context is kept
	DefaultTimeout = 1500 * time.Millisecond // how long one git command may take
	maxCached      = 512                     // folders kept at most
)

// Resolver finds folders' contexts and keeps each for a TTL. It is safe for
// concurrent use.
type Resolver struct {
	git     string
	ttl     time.Duration
	timeout time.Duration
	now     func() time.Time

	mu     sync.Mutex
	cache  map[string]cached
	status map[string]statusEntry
}

// cached is a folder's context and when it was found.
type cached struct {
	ctx Context
	at  time.Time
}

// Option configures a Resolver.
type Option func(*Resolver)

// WithClock makes the resolver read the time from now (tests pass a fake).
func WithClock(now func() time.Time) Option { return func(r *Resolver) { r.now = now } }

// WithTTL sets how long a folder's context is kept (DefaultTTL).
func WithTTL(ttl time.Duration) Option { return func(r *Resolver) { r.ttl = ttl } }

// WithTimeout bounds each git command (DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(r *Resolver) { r.timeout = d } }

// WithGit runs the git at path instead of the one on $PATH.
func WithGit(path string) Option { return func(r *Resolver) { r.git = path } }

// NewResolver returns a Resolver with the defaults and opts.
func NewResolver(opts ...Option) *Resolver {
	r := &Resolver{git: "git", ttl: DefaultTTL, timeout: DefaultTimeout, now: time.Now, cache: map[string]cached{}, status: map[string]statusEntry{}}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// Lookup returns the context of the folder cwd: the one found within the
// TTL, unless gitRan says a git command just ran there (it may have changed
// the remote, or made the repository), in which case git is asked again at
// once, as it is for a folder not seen within the TTL. A folder outside any
// repository is a Context with no Root and no error; an error means git
// could not answer (not installed, too slow, a folder that is gone).
func (r *Resolver) Lookup(ctx context.Context, cwd string, gitRan bool) (Context, error) {
	now := r.now()
	if !gitRan {
		if c, ok := r.fresh(cwd, now); ok {
			return c, nil
		}
	}
	c, err := r.discover(ctx, cwd)
	if err != nil {
		return Context{}, err
	}
	r.store(cwd, c, now)
	return c, nil
}

// fresh returns cwd's context when it was found within the TTL.
func (r *Resolver) fresh(cwd string, now time.Time) (Context, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	entry, ok := r.cache[cwd]
	if !ok || now.Sub(entry.at) >= r.ttl || now.Before(entry.at) {
		return Context{}, false
	}
	return entry.ctx, true
}

// store keeps cwd's context, first dropping the stale ones when the cache
// is full, and every one when they are all fresh still.
func (r *Resolver) store(cwd string, c Context, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.cache) >= maxCached {
		for dir, entry := range r.cache {
			if now.Sub(entry.at) >= r.ttl {
				delete(r.cache, dir)
			}
		}
		if len(r.cache) >= maxCached {
			clear(r.cache)
		}
	}
	r.cache[cwd] = cached{ctx: c, at: now}
}

// discover asks git for cwd's top level and remote.
func (r *Resolver) discover(ctx context.Context, cwd string) (Context, error) {
	if outsideAnyRepository(cwd) {
		return Context{}, nil
	}
	out, err := r.run(ctx, cwd, "rev-parse", "--show-toplevel")
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() == 128 && isNotRepo(out.stderr) {
		return Context{}, nil
	}
	if err != nil {
		return Context{}, fmt.Errorf("gitctx: the top level of %s: %w%s", cwd, err, out.detail())
	}
	top := strings.TrimRight(out.stdout, "\r\n")
	if top == "" {
		return Context{}, nil // a bare repository or a .git folder: no work tree
	}
	root, err := filepath.EvalSymlinks(top)
	if err != nil {
		return Context{}, fmt.Errorf("gitctx: the top level of %s: %w", cwd, err)
	}
	remote, err := r.remote(ctx, root)
	if err != nil {
		return Context{}, err
	}
	return Context{Root: root, Remote: remote, RepoKey: RepoKey(remote, root)}, nil
}

// outsideAnyRepository reports whether no folder from cwd (its links
// resolved, as git sees it) up to the root holds a .git entry: git would find
// no repository there either (GIT_DIR, which could name one elsewhere, is
// cleared for it), so it is not started. A folder that cannot be resolved is
// left to git, which says what is wrong with it.
func outsideAnyRepository(cwd string) bool {
	dir, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return false
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}

// isNotRepo reports whether git's message says the folder is in no
// repository, or in one with no work tree (a bare repository, a .git
// folder); a folder that does not exist says otherwise.
func isNotRepo(stderr string) bool {
	return strings.Contains(stderr, "not a git repository") || strings.Contains(stderr, "must be run in a work tree")
}

// remote returns the URL of the repository's origin, else of its first
// remote by name, else "".
func (r *Resolver) remote(ctx context.Context, root string) (string, error) {
	out, err := r.run(ctx, root, "config", "--get-regexp", `^remote\..*\.url$`)
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() == 1 {
		return "", nil // no remote
	}
	if err != nil {
		return "", fmt.Errorf("gitctx: the remotes of %s: %w%s", root, err, out.detail())
	}
	return pickRemote(out.stdout), nil
}

// pickRemote picks from git config's "remote.NAME.url URL" lines the URL of
// origin, else of the first remote by name, without credentials.
func pickRemote(lines string) string {
	urls := map[string]string{}
	var names []string
	for line := range strings.Lines(lines) {
		key, value, ok := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		if !ok {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".url")
		if _, seen := urls[name]; !seen {
			names = append(names, name)
			urls[name] = value
		}
	}
	if u, ok := urls["origin"]; ok {
		return withoutCredentials(u)
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return withoutCredentials(urls[names[0]])
}

// withoutCredentials drops the user and password a URL with a scheme may
// carry ("https://user:token@host/repo" → "https://host/repo"); an scp-like
// address (git@host:repo) keeps its user, which is no secret.
func withoutCredentials(remote string) string {
	remote = strings.TrimSpace(remote)
	if !strings.Contains(remote, "://") {
		return remote
	}
	u, err := url.Parse(remote)
	if err != nil || u.User == nil {
		return remote
	}
	u.User = nil
	return u.String()
}

// output is what a git command printed.
type output struct{ stdout, stderr string }

// detail is git's message for an error, after ": ", or "".
func (o output) detail() string {
	if msg := strings.TrimSpace(o.stderr); msg != "" {
		return ": " + firstLine(msg)
	}
	return ""
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// maxOutput bounds what is read of a git command's output.
const maxOutput = 64 << 10

// run runs git with args in dir, bounded by the resolver's timeout, with no
// pager, no prompt, no optional locks (a status must not take the index
// lock from the user's own git) and none of the environment that would point
// it at another repository.
func (r *Resolver) run(ctx context.Context, dir string, args ...string) (output, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.git, append([]string{"--no-pager", "-C", dir}, args...)...)
	cmd.Env = gitEnv(os.Environ())
	stdout, stderr := bounded.NewWriter(maxOutput), bounded.NewWriter(maxOutput)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Own(cmd)
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil && err != nil {
		err = fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	return output{stdout: stdout.String(), stderr: stderr.String()}, err
}

// gitEnv is env without the variables that point git at another repository
// or let it prompt, and with optional locks off and messages in English.
func gitEnv(env []string) []string {
	drop := map[string]bool{"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_PREFIX": true}
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if drop[name] || name == "LC_ALL" || name == "GIT_OPTIONAL_LOCKS" || name == "GIT_TERMINAL_PROMPT" || name == "GIT_PAGER" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
}
