package gitctx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// git runs git in dir with a fixed identity, failing the test on an error.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv(os.Environ())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newRepo makes a repository with one commit in a temporary folder and
// returns its root with symlinks resolved.
func newRepo(t *testing.T) string {
	t.Helper()
	testprog.RequireProgram(t, "git", "git")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func lookup(t *testing.T, r *Resolver, cwd string, gitRan bool) Context {
	t.Helper()
	c, err := r.Lookup(t.Context(), cwd, gitRan)
	if err != nil {
		t.Fatalf("Lookup(%s): %v", cwd, err)
	}
	return c
}

func TestRepoKey(t *testing.T) {
	t.Parallel()
	// The digests are worked out apart: printf 'local|/x' | sha256sum, and
	// printf 'https://github.com/clai-sh/clai.git\n/src/clai' | sha256sum.
	if got, want := RepoKey("", "/x"), "f12918d7b9ce7cce22fb637d2742c96a1fa14e244f003e1768da7d1d97ba5f21"; got != want {
		t.Errorf("RepoKey with no remote = %s, want %s", got, want)
	}
	if got, want := RepoKey("HTTPS://GitHub.com/clai-sh/clai.git", "/src/clai"), "db31b91f111f7f5467d2c3ca6f69b69102defb3a1869487c51fea20d19e704ad"; got != want {
		t.Errorf("RepoKey with a remote = %s, want %s", got, want)
	}
	if RepoKey("", "/a") == RepoKey("", "/b") || RepoKey("u", "/a") == RepoKey("", "/a") {
		t.Error("different repositories share a key")
	}
}

func TestLookupNoRemote(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	c := lookup(t, NewResolver(), sub, false)
	want := Context{Root: root, RepoKey: RepoKey("", root)}
	if c != want {
		t.Errorf("Lookup = %+v, want %+v", c, want)
	}
	if !c.InRepo() {
		t.Error("InRepo is false in a repository")
	}
}

func TestLookupRemote(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	git(t, root, "remote", "add", "backup", "https://example.com/backup.git")
	git(t, root, "remote", "add", "origin", "https://user:s3cret@GitHub.com/Clai-SH/clai.git")
	c := lookup(t, NewResolver(), root, false)
	if want := "https://GitHub.com/Clai-SH/clai.git"; c.Remote != want {
		t.Errorf("Remote = %q, want %q (origin, without its credentials)", c.Remote, want)
	}
	if want := RepoKey("https://github.com/clai-sh/clai.git", root); c.RepoKey != want {
		t.Errorf("RepoKey = %s, want %s", c.RepoKey, want)
	}
}

func TestPickRemote(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                                 "",
		"remote.b.url B\nremote.a.url A\n": "A",
		"remote.b.url B\nremote.origin.url O\nremote.a.url A\n": "O",
		"remote.a.url https://u:p@h/x\n":                        "https://h/x",
		"remote.a.url git@h:x.git\n":                            "git@h:x.git",
		"garbage\n":                                             "",
	}
	for lines, want := range cases {
		if got := pickRemote(lines); got != want {
			t.Errorf("pickRemote(%q) = %q, want %q", lines, got, want)
		}
	}
}

// TestLookupSymlink looks up a repository through a symlink to it: the root
// is the real folder, and the key is the one the real path gives.
func TestLookupSymlink(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	r := NewResolver()
	viaLink := lookup(t, r, filepath.Join(link, "sub"), false)
	direct := lookup(t, r, root, false)
	if viaLink.Root != root || viaLink != direct {
		t.Errorf("through a symlink %+v, directly %+v; want the root %s both ways", viaLink, direct, root)
	}
}

// TestLookupWorktree looks up a linked worktree: it is a root of its own,
// with the remote of its repository.
func TestLookupWorktree(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	git(t, root, "remote", "add", "origin", "https://example.com/r.git")
	wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt")
	git(t, root, "worktree", "add", "-q", "-b", "other", wt)
	t.Cleanup(func() { os.RemoveAll(wt) })
	r := NewResolver()
	main, linked := lookup(t, r, root, false), lookup(t, r, wt, false)
	if linked.Root != wt || linked.Remote != "https://example.com/r.git" {
		t.Errorf("worktree = %+v, want root %s and the remote", linked, wt)
	}
	if linked.RepoKey == main.RepoKey {
		t.Error("a worktree shares its repository's key")
	}
}

func TestLookupNotARepo(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "git", "git")
	dir := t.TempDir()
	c := lookup(t, NewResolver(), dir, false)
	if c != (Context{}) || c.InRepo() {
		t.Errorf("outside a repository: %+v", c)
	}
	bare := t.TempDir()
	git(t, bare, "init", "-q", "--bare")
	if c := lookup(t, NewResolver(), bare, false); c != (Context{}) {
		t.Errorf("in a bare repository: %+v", c)
	}
}

func TestLookupErrors(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "git", "git")
	gone := filepath.Join(t.TempDir(), "gone")
	if _, err := NewResolver().Lookup(t.Context(), gone, false); err == nil || !strings.Contains(err.Error(), gone) {
		t.Errorf("a folder that does not exist: %v", err)
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	noGit := NewResolver(WithGit(filepath.Join(t.TempDir(), "no-git")))
	if _, err := noGit.Lookup(t.Context(), repo, false); err == nil {
		t.Error("no error when git cannot start")
	}
}

// A folder with no .git entry in it or above it is in no repository, which
// is told without starting git: a run's first answer, and every event of a
// shell outside any repository, would start it otherwise.
func TestLookupOutsideAnyRepositoryStartsNoGit(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "git", "git")
	noGit := NewResolver(WithGit(filepath.Join(t.TempDir(), "no-git")))
	c, err := noGit.Lookup(t.Context(), t.TempDir(), false)
	if err != nil || c != (Context{}) {
		t.Errorf("outside any repository: %+v, %v; want no repository, and git not started", c, err)
	}
	// A link into a repository is in it, as git sees it: git is asked.
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	if _, err := noGit.Lookup(t.Context(), link, false); err == nil {
		t.Error("a link into a repository was taken as outside one: git was not asked")
	}
}

// TestLookupCache checks that a folder's context is kept for the TTL, asked
// again after it, and asked again at once after a git command.
func TestLookupCache(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := NewResolver(WithClock(clock.Now), WithTTL(2*time.Second))
	before := lookup(t, r, root, false)
	git(t, root, "remote", "add", "origin", "https://example.com/r.git")

	clock.Advance(1999 * time.Millisecond)
	if c := lookup(t, r, root, false); c != before {
		t.Errorf("within the TTL: %+v, want the kept %+v", c, before)
	}
	if c := lookup(t, r, root, true); c.Remote != "https://example.com/r.git" {
		t.Errorf("after a git command: %+v, want the new remote", c)
	}
	git(t, root, "remote", "set-url", "origin", "https://example.com/moved.git")
	clock.Advance(time.Second)
	if c := lookup(t, r, root, false); c.Remote != "https://example.com/r.git" {
		t.Errorf("within the TTL of the last lookup: %+v", c)
	}
	clock.Advance(time.Second)
	if c := lookup(t, r, root, false); c.Remote != "https://example.com/moved.git" {
		t.Errorf("after the TTL: %+v, want the moved remote", c)
	}
}

// TestLookupCacheBounded looks up more folders than the cache keeps: it
// stays bounded and still answers.
func TestLookupCacheBounded(t *testing.T) {
	t.Parallel()
	testprog.RequireProgram(t, "git", "git")
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := NewResolver(WithClock(clock.Now))
	dir := t.TempDir()
	for i := range maxCached + 3 {
		r.store(filepath.Join(dir, strconv.Itoa(i)), Context{}, clock.Now())
	}
	if n := len(r.cache); n > maxCached {
		t.Errorf("%d folders kept, the bound is %d", n, maxCached)
	}
	lookup(t, r, dir, false)
}
