package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// queryRecentUses is RecentUses as the query over the command events
// answers it, read on db with no memory in between: the reference the
// recent commands kept must agree with.
func queryRecentUses(ctx context.Context, db *sql.DB, repoKey string, n, perTemplate int) (map[string]*Recent, error) {
	rows, err := db.QueryContext(ctx, `SELECT template, args FROM command_events WHERE repo_key = ? ORDER BY ts_ms DESC, id DESC LIMIT ?`, repoKey, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*Recent{}
	seen := map[string]bool{}
	for rows.Next() {
		var template, args string
		if err := rows.Scan(&template, &args); err != nil {
			return nil, err
		}
		r := out[template]
		if r == nil {
			r = &Recent{}
			out[template] = r
		}
		r.Count++
		key := template + "\x00" + args
		if seen[key] || len(r.Args) >= perTemplate {
			continue
		}
		seen[key] = true
		if a := decodeArgs(args); a != nil {
			r.Args = append(r.Args, a)
		}
	}
	return out, rows.Err()
}

var (
	// t0 is the tests' start of time.
	t0          = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	recentRepos = []string{"", "r1", "r2", "r3"}
	// recentTemplates are templates with the args their slots may take.
	recentTemplates = []struct {
		template string
		args     [][]string
	}{
		{"make test", nil},
		{"git status", nil},
		{"vim <path>", [][]string{{"a.go"}, {"b.go"}, {"c.go"}, {"d.go"}}},
		{"git push <arg> <arg>", [][]string{{"origin", "main"}, {"origin", "dev"}, {"up", "main"}}},
		{"curl <url>", [][]string{{"https://x"}, {"https://y"}}},
	}
)

// history is a random history of the store: commands in a few
// repositories, some of whose events come late, forgets, purges, imports,
// rebuilds and tasks.
type history struct {
	s   *Store
	rnd *rand.Rand
	// now is the history's time; an event may be up to five minutes
	// older, and several share a second.
	now time.Time
}

// event is a random command near now.
func (h *history) event() Event {
	tpl := recentTemplates[h.rnd.IntN(len(recentTemplates))]
	var args []string
	if len(tpl.args) > 0 {
		args = tpl.args[h.rnd.IntN(len(tpl.args))]
	}
	at := h.now.Add(-time.Duration(h.rnd.IntN(300)) * time.Second).Truncate(time.Second)
	return Event{
		Kind: Command, Session: fmt.Sprintf("s%d", h.rnd.IntN(3)), Shell: "bash", At: at, Cwd: "/src",
		RepoKey: recentRepos[h.rnd.IntN(len(recentRepos))], Cmd: tpl.template + " " + strings.Join(args, " "),
		Template: tpl.template, Args: args, Duration: -1,
	}
}

// events are up to max random commands, with a session's start now and then.
func (h *history) events(max int) []Event {
	var es []Event
	for range 1 + h.rnd.IntN(max) {
		if h.rnd.IntN(10) == 0 {
			es = append(es, Event{Kind: SessionStart, Session: "s9", Shell: "zsh", At: h.now})
		}
		es = append(es, h.event())
	}
	return es
}

// step writes one random change to the store, and says what it was.
func (h *history) step(ctx context.Context) (string, error) {
	h.now = h.now.Add(time.Duration(h.rnd.IntN(90)) * time.Second)
	switch k := h.rnd.IntN(100); {
	case k < 60:
		return "apply", h.s.Apply(ctx, h.events(8))
	case k < 70:
		word := []string{"b.go", "dev", "https://y", "make test", "origin"}[h.rnd.IntN(5)]
		_, err := h.s.Forget(ctx, func(s string) bool { return strings.Contains(s, word) })
		return "forget " + word, err
	case k < 78:
		_, err := h.s.Purge(ctx, h.now.Add(-time.Duration(h.rnd.IntN(1200))*time.Second))
		return "purge", err
	case k < 88:
		return "import", h.s.Import(ctx, h.events(20))
	case k < 94:
		return "rebuild", h.s.RebuildAggregates(ctx)
	default:
		return "tasks", h.s.SetTasks(ctx, "r1", []Task{{Source: "Makefile", Name: "test", Command: "make test"}}, h.now)
	}
}

// agree asks RecentUses of every repository with a random n and
// perTemplate, checks each answer against the query's, and counts the
// answers that came from memory.
func agree(t *testing.T, s *Store, rnd *rand.Rand, what string) (asked, kept int) {
	t.Helper()
	for _, repo := range recentRepos {
		n, per := []int{1, 4, 12, 30}[rnd.IntN(4)], 1+rnd.IntN(3)
		if p := s.recent.repos[repo]; p != nil && n <= p.limit {
			kept++
		}
		asked++
		got, err := s.RecentUses(t.Context(), repo, n, per)
		if err != nil {
			t.Fatal(err)
		}
		want, err := queryRecentUses(t.Context(), s.db, repo, n, per)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after %s, RecentUses(%q, %d, %d):\n%s\nthe query answers:\n%s", what, repo, n, per, dump(got), dump(want))
		}
	}
	checkBytes(t, s.recent)
	return asked, kept
}

// checkBytes checks the bytes the cache counts are its repositories'.
func checkBytes(t *testing.T, c *recentCache) {
	t.Helper()
	sum := 0
	for _, p := range c.repos {
		sum += p.bytes()
	}
	if sum != c.bytes {
		t.Fatalf("the cache counts %d bytes, its repositories hold %d", c.bytes, sum)
	}
}

// dump is a RecentUses answer as text.
func dump(m map[string]*Recent) string {
	var b strings.Builder
	for k, v := range m {
		fmt.Fprintf(&b, "  %q: %d %q\n", k, v.Count, v.Args)
	}
	return b.String()
}

func newTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "suggest.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The recent commands kept in memory answer as the query would after
// every write of a random history: commands that come late, several in
// the same second, forgets, purges, imports, rebuilds.
func TestRecentUsesAgreesWithTheQueryThroughARandomHistory(t *testing.T) {
	t.Parallel()
	for seed := range uint64(2) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			h := &history{s: newTestStore(t), rnd: rand.New(rand.NewPCG(seed, 25)), now: t0}
			asked, kept := agree(t, h.s, h.rnd, "nothing")
			for i := range 150 {
				what, err := h.step(t.Context())
				if err != nil {
					t.Fatalf("step %d, %s: %v", i, what, err)
				}
				a, k := agree(t, h.s, h.rnd, fmt.Sprintf("step %d, %s", i, what))
				asked, kept = asked+a, kept+k
			}
			// Many answers came from memory (two in five steps drop it):
			// the check compared it, not the query with itself.
			if kept*3 < asked {
				t.Fatalf("%d of %d answers came from memory, want a third at least", kept, asked)
			}
		})
	}
}

// The rows a RecentUses read from the database before a commit are not
// kept once the commit is: they lack its commands, which would never come.
func TestAFillReadBeforeACommitIsNotKept(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.Apply(ctx, []Event{{Kind: Command, Session: "s", At: t0, RepoKey: "r", Template: "ls", Duration: -1}}); err != nil {
		t.Fatal(err)
	}
	// A request reads the rows, then the writer commits before the
	// request keeps them.
	epoch := s.recent.begin()
	rows, err := s.recentRows(ctx, "r", 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, []Event{{Kind: Command, Session: "s", At: t0.Add(time.Second), RepoKey: "r", Template: "make", Duration: -1}}); err != nil {
		t.Fatal(err)
	}
	s.recent.fill("r", 10, rows, epoch)
	got, err := s.RecentUses(ctx, "r", 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got["make"] == nil || got["ls"] == nil {
		t.Fatalf("RecentUses after the commit:\n%s\nwant make and ls", dump(got))
	}
}

// A command the rows read for a fill already hold, committed just before
// the fill was kept, is not put among them a second time.
func TestACommitAlreadyReadByAFillIsNotKeptTwice(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	epoch := s.recent.begin()
	// The commit is in the database when the rows are read, and told to
	// the memory after they are kept.
	a := &applyTx{s: s, st: map[string]*sql.Stmt{}, added: map[string][]recentRow{}}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.tx = tx
	if err := a.insertEvent(ctx, &Event{Kind: Command, Session: "s", At: t0, RepoKey: "r", Template: "ls", Duration: -1}, t0.UnixMilli()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := s.recentRows(ctx, "r", 10)
	if err != nil {
		t.Fatal(err)
	}
	s.recent.fill("r", 10, rows, epoch)
	s.recent.add(a.added)
	got, err := s.RecentUses(ctx, "r", 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got["ls"] == nil || got["ls"].Count != 1 {
		t.Fatalf("RecentUses:\n%s\nwant ls once", dump(got))
	}
}

// Commands committed while RecentUses is asked, from other goroutines,
// leave the memory agreeing with the query (and the race detector quiet).
func TestRecentUsesAgreesWithTheQueryAfterConcurrentCommits(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	h := &history{s: s, rnd: rand.New(rand.NewPCG(7, 25)), now: t0}
	batches := make([][]Event, 60)
	for i := range batches {
		h.now = h.now.Add(time.Minute)
		batches[i] = h.events(5)
	}
	var wg sync.WaitGroup
	for _, repo := range recentRepos {
		wg.Go(func() {
			for range 2 * len(batches) {
				if _, err := s.RecentUses(t.Context(), repo, 30, 2); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for _, b := range batches {
		if err := s.Apply(t.Context(), b); err != nil {
			t.Error(err)
			break
		}
	}
	wg.Wait()
	for _, repo := range recentRepos {
		got, err := s.RecentUses(t.Context(), repo, 30, 2)
		if err != nil {
			t.Fatal(err)
		}
		want, err := queryRecentUses(t.Context(), s.db, repo, 30, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("RecentUses(%q) after the commits:\n%s\nthe query answers:\n%s", repo, dump(got), dump(want))
		}
	}
}

// The memory kept is bounded: at most maxRecentRepos repositories and
// maxBytes of rows, however many are asked of and however long their
// commands; what is answered still agrees with the query.
func TestRecentCommandsKeptAreBounded(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	// Ten commands of 8 KiB in one repository of ten: 80 KiB, which
	// 4 MiB keep but 64 KiB do not.
	long := strings.Repeat("x", 8<<10)
	var es []Event
	for r := range 2 * maxRecentRepos {
		template := "echo <arg>"
		if r%10 == 0 {
			template = "echo " + long
		}
		for i := range 10 {
			es = append(es, Event{Kind: Command, Session: "s", At: t0.Add(time.Duration(r*10+i) * time.Second), RepoKey: fmt.Sprintf("repo-%d", r), Template: template, Args: []string{fmt.Sprint(i)}, Duration: -1})
		}
	}
	if err := s.Import(ctx, es); err != nil {
		t.Fatal(err)
	}
	// Each repository asked of in turn: at most maxRecentRepos kept, and
	// fewer where the bytes ran out first.
	askAll := func() (fewer bool) {
		t.Helper()
		for r := range 2 * maxRecentRepos {
			repo := fmt.Sprintf("repo-%d", r)
			got, err := s.RecentUses(ctx, repo, 20, 20)
			if err != nil {
				t.Fatal(err)
			}
			want, err := queryRecentUses(ctx, s.db, repo, 20, 20)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("RecentUses(%q) does not agree with the query", repo)
			}
			checkBytes(t, s.recent)
			n, b := len(s.recent.repos), s.recent.bytes
			if n > maxRecentRepos || b > s.recent.maxBytes {
				t.Fatalf("after %d repositories the memory keeps %d of them, %d bytes", r+1, n, b)
			}
			fewer = fewer || n < min(r+1, maxRecentRepos)
		}
		return fewer
	}
	if askAll() || len(s.recent.repos) != maxRecentRepos {
		t.Fatalf("%d repositories kept, %d bytes, want %d: the bytes ran out first", len(s.recent.repos), s.recent.bytes, maxRecentRepos)
	}
	s.recent.maxBytes = 64 << 10
	if !askAll() {
		t.Fatal("no repository was dropped for the bytes: the test checks nothing of them")
	}
	for _, n := range []int{20, maxRecentDepth + 1, 0, -1} {
		got, err := s.RecentUses(ctx, "repo-1", n, 3)
		if err != nil {
			t.Fatal(err)
		}
		want, err := queryRecentUses(ctx, s.db, "repo-1", n, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("RecentUses(%q, %d) does not agree with the query", "repo-1", n)
		}
	}
	if p := s.recent.repos["repo-1"]; p != nil && p.limit > maxRecentDepth {
		t.Fatalf("kept %d rows of a repository, over %d", p.limit, maxRecentDepth)
	}
}

// BenchmarkRecentUses asks for the recent uses of a repository's last 300
// commands, out of 100,000 in 20 repositories, as a suggestion does: by the
// query, as every request did before the store kept them; the first time,
// when the store reads and keeps them; and from memory.
func BenchmarkRecentUses(b *testing.B) {
	s := newTestStore(b)
	ctx := b.Context()
	h := &history{s: s, rnd: rand.New(rand.NewPCG(1, 25)), now: t0}
	for range 10 {
		es := make([]Event, 10_000)
		for i := range es {
			h.now = h.now.Add(time.Second)
			es[i] = h.event()
			es[i].RepoKey = fmt.Sprintf("repo-%d", h.rnd.IntN(20))
		}
		if err := s.Import(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("query", func(b *testing.B) {
		for b.Loop() {
			if _, err := queryRecentUses(ctx, s.db, "repo-3", 300, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fill", func(b *testing.B) {
		for b.Loop() {
			s.recent.drop()
			if _, err := s.RecentUses(ctx, "repo-3", 300, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.RecentUses(ctx, "repo-3", 300, 3); err != nil {
				b.Fatal(err)
			}
		}
	})
}
