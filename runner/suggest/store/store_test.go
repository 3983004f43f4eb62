package store_test

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/clai-sh/clai/runner/suggest/store"
)

// t0 is the tests' start of time.
var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func open(t *testing.T, path string, opt store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func newStore(t *testing.T) *store.Store {
	return open(t, filepath.Join(t.TempDir(), "suggest.db"), store.Options{})
}

// cmd is a command event of session in repo at t0+at.
func cmd(session, repo, template string, at time.Duration) store.Event {
	return store.Event{Kind: store.Command, Session: session, Shell: "bash", At: t0.Add(at), Cwd: "/src", RepoKey: repo, Cmd: template, Template: template, Duration: -1}
}

func TestOpenMigratesOnceInWALMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "suggest.db")
	s := open(t, path, store.Options{})
	ms, err := s.Migrations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != store.SchemaVersion() || ms[len(ms)-1].Version != store.SchemaVersion() {
		t.Fatalf("migrations %+v, want versions 1..%d", ms, store.SchemaVersion())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, path, store.Options{})
	ms2, err := again.Migrations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ms, ms2) {
		t.Fatalf("a second open migrated again: %+v, then %+v", ms, ms2)
	}
	db := rawDB(t, path)
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("journal mode %q, want wal", mode)
	}
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestOpenRefusesANewerDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "suggest.db")
	s := open(t, path, store.Options{})
	_ = s.Close()
	newer := store.SchemaVersion() + 1
	if _, err := rawDB(t, path).Exec(`INSERT INTO schema_migrations(version, applied_ms) VALUES (?, 0)`, newer); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(t.Context(), path, store.Options{})
	if !errors.Is(err, store.ErrNewerSchema) {
		t.Fatalf("open of a version %d database: %v, want ErrNewerSchema", newer, err)
	}
	if want := fmt.Sprintf("schema version %d and this clai knows up to %d", newer, store.SchemaVersion()); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}

func TestTransitionsFollowTheSessionElseTheRepoWithinItsWindow(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	events := []store.Event{
		cmd("a", "repo1", "git pull", 0),
		cmd("a", "repo1", "make test", time.Minute),
		// b's first command follows a's last one in the same repository,
		// two minutes on.
		cmd("b", "repo1", "make lint", 3*time.Minute),
		// c's first command comes an hour later: nothing precedes it.
		cmd("c", "repo1", "git status", time.Hour),
		// d is in no repository: it learns globally only.
		cmd("d", "", "ls", time.Hour),
		cmd("d", "", "make test", time.Hour+time.Second),
	}
	if err := s.Apply(ctx, events); err != nil {
		t.Fatal(err)
	}
	got := func(scope, prev string) map[string]int64 {
		ts, err := s.Transitions(ctx, scope, prev, 10)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, tr := range ts {
			m[tr.Next] = tr.Count
		}
		return m
	}
	for _, c := range []struct {
		scope, prev string
		want        map[string]int64
	}{
		{"repo1", "git pull", map[string]int64{"make test": 1}},
		{"", "git pull", map[string]int64{"make test": 1}},
		{"repo1", "make test", map[string]int64{"make lint": 1}},
		{"repo1", "make lint", map[string]int64{}},
		{"", "ls", map[string]int64{"make test": 1}},
		{"repo1", "ls", map[string]int64{}},
	} {
		if g := got(c.scope, c.prev); !reflect.DeepEqual(g, c.want) {
			t.Errorf("transitions from %q in scope %q: %v, want %v", c.prev, c.scope, g, c.want)
		}
	}
	ts, err := s.Transitions(ctx, "", "make lint", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 0 {
		t.Errorf("git status an hour after make lint in another session made a transition: %+v", ts)
	}
}

func TestScoresDecayWithTheirHalfLife(t *testing.T) {
	t.Parallel()
	s := open(t, filepath.Join(t.TempDir(), "suggest.db"), store.Options{HalfLife: 24 * time.Hour})
	ctx := t.Context()
	var events []store.Event
	for i := range 3 {
		events = append(events, cmd("a", "r", "make old", time.Duration(i)*time.Second))
	}
	events = append(events, cmd("a", "r", "make new", 72*time.Hour))
	if err := s.Apply(ctx, events); err != nil {
		t.Fatal(err)
	}
	// Three runs three half-lives ago weigh 3/8; one run now weighs 1.
	top, err := s.TopCommands(ctx, "r", t0.Add(72*time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(top) != 2 || top[0].Template != "make new" || top[1].Template != "make old" {
		t.Fatalf("top commands %+v, want make new before make old", top)
	}
	if !near(top[0].Score, 1) || !near(top[1].Score, 3.0/8) || top[1].Count != 3 {
		t.Fatalf("scores %v (count %d) and %v, want 1, 0.375 (count 3)", top[0].Score, top[1].Count, top[1].Score)
	}
	// A day later both halve, and the order holds.
	later, err := s.TopCommands(ctx, "r", t0.Add(96*time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if !near(later[0].Score, 0.5) || !near(later[1].Score, 3.0/16) {
		t.Fatalf("scores a day later %v, %v, want 0.5, 0.1875", later[0].Score, later[1].Score)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

func TestRebuildAggregatesLearnsWhatApplyLearnt(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var events []store.Event
	templates := []string{"git pull", "make test", "git commit -m <msg>", "git push", "make lint"}
	for i := range 200 {
		session := fmt.Sprintf("s%d", i/17)
		repo := []string{"r1", "r2", ""}[i%3]
		e := cmd(session, repo, templates[(i*7)%len(templates)], time.Duration(i)*37*time.Second)
		if e.Template == "git commit -m <msg>" {
			e.Args = []string{fmt.Sprintf("'message %d'", i%2)}
			e.Cmd = "git commit -m " + e.Args[0]
		}
		events = append(events, e)
	}
	applied := newStore(t)
	if err := applied.Apply(ctx, events); err != nil {
		t.Fatal(err)
	}
	imported := newStore(t)
	if err := imported.Import(ctx, events); err != nil {
		t.Fatal(err)
	}
	if err := imported.RebuildAggregates(ctx); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(3 * time.Hour)
	for _, scope := range []string{"", "r1", "r2"} {
		want := snapshot(t, applied, scope, now)
		if got := snapshot(t, imported, scope, now); !reflect.DeepEqual(got, want) {
			t.Errorf("scope %q: rebuilt\n%v\nwant\n%v", scope, got, want)
		}
	}
	// A rebuild of what Apply learnt changes nothing either.
	if err := applied.RebuildAggregates(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, applied, "r1", now), snapshot(t, imported, "r1", now); !reflect.DeepEqual(got, want) {
		t.Errorf("rebuilt again:\n%v\nwant\n%v", got, want)
	}
}

// snapshot prints what scope learnt, rounded.
func snapshot(t *testing.T, s *store.Store, scope string, now time.Time) string {
	t.Helper()
	var b strings.Builder
	ts, err := s.AllTransitions(t.Context(), scope, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		fmt.Fprintf(&b, "%s -> %s ×%d at %d\n", tr.Prev, tr.Next, tr.Count, tr.Last.UnixMilli())
	}
	cs, err := s.TopCommands(t.Context(), scope, now, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %.9f ×%d %q %q ×%d\n", c.Template, c.Score, c.Count, c.LastCmd, c.LastArgs, c.ArgsUses)
	}
	if b.Len() == 0 {
		t.Fatalf("scope %q learnt nothing", scope)
	}
	return b.String()
}

func TestPurgeRemovesWhatIsOlderThanTheRetention(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	day := 24 * time.Hour
	if err := s.Apply(ctx, []store.Event{
		cmd("old", "r", "git pull", 0),
		cmd("old", "r", "make test", time.Minute),
		cmd("new", "r", "make lint", 100*day),
		cmd("new", "r", "make test", 100*day+time.Minute),
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTasks(ctx, "r", []store.Task{{Source: "Makefile", Name: "test", Command: "make test"}}, t0); err != nil {
		t.Fatal(err)
	}
	p, err := s.Purge(ctx, t0.Add(100*day-store.DefaultRetention))
	if err != nil {
		t.Fatal(err)
	}
	want := store.Purged{Events: 2, Sessions: 1, Transitions: 2, Scores: 2, Tasks: 1}
	if p.Scrubbed = (store.Scrubbed{}); p != want {
		t.Fatalf("purged %+v, want %+v", p, want)
	}
	c, err := s.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c != (store.Counts{Sessions: 1, Events: 2, Transitions: 2, Scores: 4}) {
		t.Fatalf("left %+v", c)
	}
	top, err := s.TopCommands(ctx, "r", t0.Add(100*day), 10)
	if err != nil {
		t.Fatal(err)
	}
	// make test ran again lately: its score stays, the old run in it
	// decayed to nearly nothing.
	if len(top) != 2 || top[0].Template != "make test" || top[0].Count != 2 || top[0].Score > 1.01 || top[1].Template != "make lint" {
		t.Fatalf("scores left %+v, want make test (twice, the first decayed away) and make lint", top)
	}
}

func TestTasksAreReplacedByRepository(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	first := []store.Task{{Source: "Makefile", Name: "test", Command: "make test"}, {Source: "package.json", Name: "build", Command: "npm run build"}}
	if err := s.SetTasks(ctx, "r", first, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTasks(ctx, "other", first[:1], t0); err != nil {
		t.Fatal(err)
	}
	second := []store.Task{{Source: "Makefile", Name: "lint", Command: "make lint"}}
	if err := s.SetTasks(ctx, "r", second, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for repo, want := range map[string][]store.Task{"r": second, "other": first[:1], "none": nil} {
		got, err := s.Tasks(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tasks of %s: %+v, want %+v", repo, got, want)
		}
	}
}

func TestTheLastArgsOfATemplateAreKeptWithTheirUsesInARow(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	push := func(remote string, at time.Duration) store.Event {
		e := cmd("a", "r", "git push <url> main", at)
		e.Args, e.Cmd = []string{remote}, "git push "+remote+" main"
		return e
	}
	if err := s.Apply(ctx, []store.Event{push("git@a:x.git", 0), push("git@b:y.git", time.Second), push("git@b:y.git", 2*time.Second), cmd("a", "r", "make", 3*time.Second)}); err != nil {
		t.Fatal(err)
	}
	top, err := s.TopCommands(ctx, "r", t0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if top[0].Template != "git push <url> main" || !reflect.DeepEqual(top[0].LastArgs, []string{"git@b:y.git"}) || top[0].ArgsUses != 2 || top[0].Count != 3 {
		t.Fatalf("top %+v, want git push with git@b:y.git used twice in a row", top[0])
	}
	if top[1].LastArgs != nil {
		t.Fatalf("make has args %q", top[1].LastArgs)
	}
	ts, err := s.Transitions(ctx, "r", "git push <url> main", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Next != "git push <url> main" || ts[0].ArgsUses != 2 || ts[0].LastArgs[0] != "git@b:y.git" {
		t.Fatalf("transitions %+v", ts)
	}
}

func TestTheDatabaseIsItsOwnersOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "suggest.db")
	// A database left readable by others is closed to them.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, store.Options{})
	if err := s.Apply(t.Context(), []store.Event{cmd("a", "r", "ls", 0)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

func TestACommandThatComesLateIsPutBackInItsPlace(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	events := []store.Event{
		cmd("a", "r", "git pull", 0),
		cmd("a", "r", "make test", 2*time.Second),
		cmd("a", "r", "make lint", 4*time.Second),
		cmd("a", "r", "git push", 6*time.Second),
	}
	late := newStore(t)
	// git status ran between git pull and make test, and make lint between
	// make test and git push, but their events came last, one by one.
	status := cmd("a", "r", "git status", time.Second)
	if err := late.Apply(ctx, []store.Event{events[0], events[1], events[3]}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []store.Event{status, events[2]} {
		if err := late.Apply(ctx, []store.Event{e}); err != nil {
			t.Fatal(err)
		}
	}
	inOrder := newStore(t)
	if err := inOrder.Apply(ctx, []store.Event{events[0], status, events[1], events[2], events[3]}); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	for _, scope := range []string{"", "r"} {
		if got, want := snapshot(t, late, scope, now), snapshot(t, inOrder, scope, now); got != want {
			t.Errorf("scope %q: learnt late\n%v\nwant\n%v", scope, got, want)
		}
	}
}
