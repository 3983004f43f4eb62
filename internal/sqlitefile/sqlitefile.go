// Package sqlitefile opens the SQLite databases clai keeps for a user (the
// suggestion daemon's and the learned answers'): the pure-Go driver, WAL
// mode, a busy timeout, and files that only their owner may read.
package sqlitefile

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
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
// crash.
func Open(path string, o Options) (*sql.DB, error) {
	if err := ownerOnly(path); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn(path, o))
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	return db, nil
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
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// dsn is the driver's name of the database at path.
func dsn(path string, o Options) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if o.ImmediateTx {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}
