package store_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/sqlitefile/sqlitefiletest"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// secretCommands are events of a command that holds marker, each in its
// own session beside the history of a busy user, from t0+from on.
func history(marker string, from time.Duration) []store.Event {
	var es []store.Event
	for i := range 300 {
		at := from + time.Duration(i)*time.Minute
		es = append(es, cmd("s", "repo", fmt.Sprintf("make test-%d", i%7), at))
		if i%50 == 0 {
			e := cmd("s", "repo", "export TOKEN=<arg>", at+time.Second)
			e.Cmd, e.Args = "export TOKEN="+marker, []string{marker}
			es = append(es, e)
		}
	}
	return es
}

// marker is a value found nowhere but where it was put.
func marker() string { return "mark" + strings.ToLower(rand.Text()) }

// A purge leaves no byte of what it removed in the database, its free pages
// or its write-ahead log, while the store is still open.
func TestAPurgeLeavesNoTraceInTheFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "suggest.db")
	s := open(t, path, store.Options{})
	old, kept := marker(), marker()
	// The last old command comes right before the first kept one: the
	// transition between them is recent, but names the old command.
	last := cmd("s", "repo", "echo "+old, 19*24*time.Hour)
	if err := s.Apply(t.Context(), append(append(history(old, 0), history(old, 10*time.Hour)...), last)); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(t.Context(), history(kept, 30*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := sqlitefiletest.Traces(t, path, old); len(got) == 0 {
		t.Fatal("the marker was never written")
	}
	p, err := s.Purge(t.Context(), t0.Add(20*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if p.Events != 613 || !p.Scrubbed.Vacuumed {
		t.Fatalf("purged %+v, want 613 events and a vacuum: two thirds of the commands went", p)
	}
	if got := sqlitefiletest.Traces(t, path, old); len(got) > 0 {
		t.Fatalf("the purged command is still in %v", got)
	}
	if got := sqlitefiletest.Traces(t, path, kept); len(got) == 0 {
		t.Fatal("the command kept is gone")
	}
}

func TestForgetRemovesTheCommandsAndWhatWasLearntFromThem(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "suggest.db")
	s := open(t, path, store.Options{})
	secret := marker()
	events := history(secret, 0)
	// The token as an arg alone, quoted apart from the command line.
	e := cmd("s", "repo", "curl -H <arg>", time.Hour)
	e.Cmd, e.Args = `curl -H 'Authorization: Bearer '"`+secret[:6]+`"`+secret[6:], []string{"Authorization: Bearer " + secret}
	events = append(events, e)
	if err := s.Apply(t.Context(), events); err != nil {
		t.Fatal(err)
	}
	want := snapshotOf(t, path, func(s *store.Store) {
		if err := s.Apply(t.Context(), without(events, secret)); err != nil {
			t.Fatal(err)
		}
	})
	f, err := s.Forget(t.Context(), func(c string) bool { return strings.Contains(c, secret) })
	if err != nil {
		t.Fatal(err)
	}
	if f.Events != 7 {
		t.Fatalf("forgot %d events, want 7", f.Events)
	}
	if got := snapshot(t, s, "repo", t0.Add(time.Hour)); got != want {
		t.Fatalf("after forget, what is learnt:\n%s\nwant what the other commands alone teach:\n%s", got, want)
	}
	if strings.Contains(want, "TOKEN") || strings.Contains(want, "curl") {
		t.Fatalf("the snapshot holds what was forgotten:\n%s", want)
	}
	if got := sqlitefiletest.Traces(t, path, secret); len(got) > 0 {
		t.Fatalf("the forgotten command is still in %v", got)
	}
	if f, err := s.Forget(t.Context(), func(c string) bool { return strings.Contains(c, secret) }); err != nil || f.Events != 0 {
		t.Fatalf("forgetting again: %+v, %v", f, err)
	}
}

// without is events less those that hold s.
func without(events []store.Event, s string) []store.Event {
	var out []store.Event
	for _, e := range events {
		if !strings.Contains(e.Cmd, s) && !strings.Contains(strings.Join(e.Args, " "), s) {
			out = append(out, e)
		}
	}
	return out
}

// snapshotOf is what a new store filled by fill learns, in repo's scope.
func snapshotOf(t *testing.T, beside string, fill func(*store.Store)) string {
	t.Helper()
	s := open(t, filepath.Join(filepath.Dir(beside), "other.db"), store.Options{})
	fill(s)
	return snapshot(t, s, "repo", t0.Add(time.Hour))
}

func TestACorruptDatabaseIsMovedAside(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	for name, spoil := range map[string]func(t *testing.T, path string){
		"garbage": func(t *testing.T, path string) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("not sqlite at all\n"), 400), 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"a page overwritten": func(t *testing.T, path string) {
			s, err := store.Open(t.Context(), path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), history(marker(), 0)); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			overwritePage(t, path)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "suggest.db")
			spoil(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			moved, err := store.CheckOrMoveAside(t.Context(), path, now)
			if err != nil {
				t.Fatal(err)
			}
			if moved == nil || !errors.Is(moved.Reason, store.ErrCorrupt) || moved.To != path+".corrupt-20260504T030201Z" {
				t.Fatalf("moved %+v", moved)
			}
			if after, err := os.ReadFile(moved.To); err != nil || !bytes.Equal(after, before) {
				t.Fatalf("the old file was not kept whole: %v", err)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the corrupt database is still at its place: %v", err)
			}
			s := open(t, path, store.Options{})
			if _, err := s.Count(t.Context()); err != nil {
				t.Fatalf("the fresh database: %v", err)
			}
		})
	}
}

func TestAGoodOrMissingDatabaseStaysWhereItIs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "suggest.db")
	if moved, err := store.CheckOrMoveAside(t.Context(), path, t0); moved != nil || err != nil {
		t.Fatalf("a missing database: %+v, %v", moved, err)
	}
	s := open(t, path, store.Options{})
	if err := s.Apply(t.Context(), history(marker(), 0)); err != nil {
		t.Fatal(err)
	}
	if moved, err := store.CheckOrMoveAside(t.Context(), path, t0); moved != nil || err != nil {
		t.Fatalf("a good database: %+v, %v", moved, err)
	}
}

// overwritePage writes garbage over a page in the middle of the database at
// path, keeping its header whole.
func overwritePage(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := fi.Size() / page
	if pages < 4 {
		t.Fatalf("the database has %d pages", pages)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, page), (pages/2)*page); err != nil {
		t.Fatal(err)
	}
}

// A forgotten command's args are not offered by RecentUses, though the
// repository's recent commands were read, and kept, before the forget; nor
// are a purged command's.
func TestRecentUsesOffersNoForgottenOrPurgedArgs(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	secret, old := marker(), marker()
	vim := func(arg string, at time.Duration) store.Event {
		e := cmd("s", "repo", "vim <path>", at)
		e.Cmd, e.Args = "vim "+arg, []string{arg}
		return e
	}
	if err := s.Apply(ctx, []store.Event{vim(old, 0), vim("main.go", time.Hour), vim(secret, 2*time.Hour), cmd("s", "repo", "make test", 3*time.Hour)}); err != nil {
		t.Fatal(err)
	}
	offered := func(arg string) bool {
		t.Helper()
		recent, err := s.RecentUses(ctx, "repo", 300, 3)
		if err != nil {
			t.Fatal(err)
		}
		return recent["vim <path>"] != nil && slices.ContainsFunc(recent["vim <path>"].Args, func(a []string) bool { return slices.Contains(a, arg) })
	}
	if !offered(secret) || !offered(old) || !offered("main.go") {
		t.Fatal("the args are not offered before the forget: the test sees nothing")
	}
	if _, err := s.Forget(ctx, func(c string) bool { return strings.Contains(c, secret) }); err != nil {
		t.Fatal(err)
	}
	if offered(secret) {
		t.Fatal("a forgotten command's args are still offered")
	}
	if _, err := s.Purge(ctx, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if offered(old) {
		t.Fatal("a purged command's args are still offered")
	}
	if !offered("main.go") {
		t.Fatal("the args of a command kept are no longer offered")
	}
}
