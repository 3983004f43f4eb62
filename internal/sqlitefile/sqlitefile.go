// Package sqlitefile opens the SQLite databases clai keeps for a user (the
// suggestion daemon's and the learned answers'): the pure-Go driver, WAL
// mode, a busy timeout, files that only their owner may read, and
// forward-only migrations of their schemas.
package sqlitefile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a statement waits for a lock another connection
// (another process) holds.
const BusyTimeout = 5 * time.Second

// Options tunes how a database is opened.
type Options struct {
	// ImmediateTx makes transactions take the write lock as they begin, so
	// that two writers never deadlock upgrading a read lock.
	ImmediateTx bool
}

// Open opens the database at path, making its folder (0700) and the file
// (0600) when missing, and giving the file and the WAL files beside it mode
// 0600 first: SQLite makes those with the database's mode. The database is
// in WAL mode with synchronous=NORMAL, which WAL keeps consistent through a
// crash. Every connection has secure_delete on. Open returns once its first
// connection is made (see firstConnection); what else a connection finds
// wrong is said by the first use of the database, as before.
func Open(path string, o Options) (*sql.DB, error) {
	if err := ownerOnly(path); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, o))
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	firstConnection(db)
	return db, nil
}

// firstConnection makes db's first connection. A new database turns to WAL
// as its first connection opens, which needs the file to itself: while
// another process's first connection does the same (several runs that start
// at once on a new database), the switch fails with SQLITE_BUSY at once,
// without the busy timeout's wait. It is tried again, BusyTimeout at most;
// any other outcome is left to the database's first use.
func firstConnection(db *sql.DB) {
	deadline := time.Now().Add(BusyTimeout)
	for step := 0; ; step++ {
		err := db.Ping()
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return
		}
		time.Sleep(min(time.Millisecond<<min(step, 6), time.Until(deadline)))
	}
}

// ownerOnly makes path's folder and file when missing, and gives the file
// and its WAL files mode 0600.
func ownerOnly(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range Files(path) {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Files are the files of the database at path: itself, its write-ahead log
// and its shared memory, in that order.
func Files(path string) []string { return []string{path, path + "-wal", path + "-shm"} }

// dsn is the driver's name of the database at path.
func dsn(path string, o Options) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// What is deleted is overwritten with zeros, on the page it was on
	// and on pages given back to the free list: a purge leaves nothing of
	// the rows it removed once the write-ahead log is checkpointed (see
	// Scrub).
	q.Add("_pragma", "secure_delete(ON)")
	if o.ImmediateTx {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// ErrNewer is the error of a database whose schema is newer than the
// migrations this build knows.
var ErrNewer = errors.New("database schema is newer than this clai")

// Migrate brings the schema of db forward to len(migrations): migration i
// takes it from version i to i+1. It runs in one transaction that holds the
// write lock from its start, so that processes opening a new database at once
// make its tables once. The versions applied are kept in schema_migrations
// (version, applied_ms) and in PRAGMA user_version; a database that kept its
// version only in user_version starts from there. A database of a newer
// version is refused with ErrNewer.
func Migrate(ctx context.Context, db *sql.DB, migrations []string) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)`); err != nil {
		return err
	}
	var recorded sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&recorded); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	var pragma int64
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&pragma); err != nil {
		return fmt.Errorf("schema version: %w", err)
	}
	have := int(max(recorded.Int64, pragma))
	if have > len(migrations) {
		return fmt.Errorf("schema version %d and this clai knows up to %d: %w; run a newer clai, or move the database away to start afresh", have, len(migrations), ErrNewer)
	}
	now := time.Now().UnixMilli()
	for v := 1; v <= len(migrations); v++ {
		if v > have {
			if _, err := conn.ExecContext(ctx, migrations[v-1]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
		}
		if int64(v) > recorded.Int64 {
			if _, err := conn.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_ms) VALUES (?, ?)`, v, now); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
		}
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}
