// Package store keeps the suggestion engine's memory in SQLite: the shell
// sessions, every command run in them, and what is learnt from those
// commands (transitions from one command to the next, decayed frequencies,
// the projects' tasks). The database is in WAL mode, so that the daemon's
// queries read while its one writer writes.
//
// Open migrates the schema forward; the caller holds the daemon's lock while
// it does, so that two processes never migrate at once.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/clai-sh/clai/internal/sqlitefile"
)

// Defaults of Options.
const (
	DefaultHalfLife   = 14 * 24 * time.Hour
	DefaultRepoWindow = 5 * time.Minute
	DefaultRetention  = 90 * 24 * time.Hour
)

// Options tune what the store learns.
type Options struct {
	// HalfLife is the time in which a command's score halves; zero is
	// DefaultHalfLife.
	HalfLife time.Duration
	// RepoWindow is how recent the last command in the same repository must
	// be to count as the previous one of a command that has none in its own
	// session; zero is DefaultRepoWindow.
	RepoWindow time.Duration
}

func (o Options) withDefaults() Options {
	if o.HalfLife <= 0 {
		o.HalfLife = DefaultHalfLife
	}
	if o.RepoWindow <= 0 {
		o.RepoWindow = DefaultRepoWindow
	}
	return o
}

// Store is the database of the suggestion engine. Its methods are safe for
// concurrent use; the writes come from one goroutine, a Writer's.
type Store struct {
	db   *sql.DB
	path string
	opt  Options
	// recent keeps the latest commands of the repositories asked of
	// lately, for RecentUses.
	recent *recentCache
}

// ErrNewerSchema is the error of a database written by a newer clai.
var ErrNewerSchema = sqlitefile.ErrNewer

// Open opens the database at path, making it and its folder (0700) if
// missing, and migrates its schema forward. A database of a newer schema than
// this build knows is refused with ErrNewerSchema. The database and its WAL
// files are readable by their owner only.
func Open(ctx context.Context, path string, opt Options) (*Store, error) {
	db, err := sqlitefile.Open(path, sqlitefile.Options{ImmediateTx: true})
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, opt: opt.withDefaults(), recent: newRecentCache()}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Scrub makes what was deleted unreadable in the database's files: it
// vacuums when a quarter of the pages are free, then checkpoints the
// write-ahead log into the database and truncates it (see
// sqlitefile.Scrub). It is one of the store's writes (see Writer.Do).
func (s *Store) Scrub(ctx context.Context) (Scrubbed, error) {
	sc, err := sqlitefile.Scrub(ctx, s.db)
	if err != nil {
		return sc, fmt.Errorf("database %s: %w", s.path, err)
	}
	return sc, nil
}

// Path is the database's file.
func (s *Store) Path() string { return s.path }

// migrate brings the schema to this build's version.
func (s *Store) migrate(ctx context.Context) error {
	if err := sqlitefile.Migrate(ctx, s.db, migrations); err != nil {
		return fmt.Errorf("database %s: %w", s.path, err)
	}
	return nil
}

// Migrations lists the schema versions the database went through, oldest
// first, with the time each was applied.
func (s *Store) Migrations(ctx context.Context) ([]Migration, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version, applied_ms FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("schema migrations: %w", err)
	}
	defer rows.Close()
	var ms []Migration
	for rows.Next() {
		var m Migration
		var at int64
		if err := rows.Scan(&m.Version, &at); err != nil {
			return nil, fmt.Errorf("schema migrations: %w", err)
		}
		m.Applied = time.UnixMilli(at)
		ms = append(ms, m)
	}
	return ms, rows.Err()
}

// Migration is one schema step applied to the database.
type Migration struct {
	Version int
	Applied time.Time
}

// rankAt is the rank of a score of 1 at t: a command's rank is
// log2(score) + t/HalfLife, a number that does not change as time passes, so
// that the index on it orders commands by their decayed score at any time.
func (s *Store) rankAt(t int64) float64 {
	return float64(t) / float64(s.opt.HalfLife.Milliseconds())
}

// bump is the rank of a command of rank r run once more at t.
func (s *Store) bump(r float64, t int64) float64 {
	now := s.rankAt(t)
	return now + math.Log2(math.Exp2(r-now)+1)
}

// decayed is the score at t of a command of rank r.
func (s *Store) decayed(r float64, t int64) float64 {
	return math.Exp2(r - s.rankAt(t))
}

// errWriterClosed is the error of a write asked of a closed writer.
var errWriterClosed = errors.New("the store's writer is closed")
