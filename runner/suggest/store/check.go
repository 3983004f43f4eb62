package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/clai-sh/clai/internal/sqlitefile"
)

// ErrCorrupt is the error of a database that is not SQLite, or fails
// SQLite's quick check.
var ErrCorrupt = errors.New("the database is corrupt")

// MovedAside tells of a corrupt database moved out of the way.
type MovedAside struct {
	// Path is where the database was, To where it is now; its write-ahead
	// log and shared memory, when there were any, are beside To with the
	// same suffixes.
	Path, To string
	// Reason is what was found wrong, an ErrCorrupt.
	Reason error
}

// maxCheckFindings bounds the findings of quick_check kept in a Reason.
const maxCheckFindings = 5

// Check runs SQLite's quick check on the database at path: nil for a good
// database and for a missing or empty file; an error wrapping ErrCorrupt
// for a file that is not a SQLite database or one quick_check finds wrong;
// any other error (a folder it may not read, a disk that fails) as it is.
// The caller holds the daemon's lock.
func Check(ctx context.Context, path string) error {
	if fi, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Size() == 0) {
		return nil
	}
	db, err := sqlitefile.Open(path, sqlitefile.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return corrupt(err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return corrupt(err)
		}
		if line != "ok" && len(found) < maxCheckFindings {
			found = append(found, line)
		}
	}
	if err := rows.Err(); err != nil {
		return corrupt(err)
	}
	if len(found) > 0 {
		return fmt.Errorf("%w: quick_check: %s", ErrCorrupt, strings.Join(found, "; "))
	}
	return nil
}

// corrupt is err as ErrCorrupt when SQLite said the file is not a database
// or is malformed, else err.
func corrupt(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	return err
}

// CheckOrMoveAside checks the database at path (see Check) and, when it is
// corrupt, renames it and its write-ahead files to path.corrupt-TIME (TIME
// as 20060102T150405Z of now, in UTC) so that a fresh database is made in
// its place; it returns what it moved, or nil when the database is good.
// An error other than corruption is returned, and nothing is moved. The
// caller holds the daemon's lock.
func CheckOrMoveAside(ctx context.Context, path string, now time.Time) (*MovedAside, error) {
	reason := Check(ctx, path)
	if reason == nil {
		return nil, nil
	}
	if !errors.Is(reason, ErrCorrupt) {
		return nil, fmt.Errorf("database %s: %w", path, reason)
	}
	to := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	from, dest := sqlitefile.Files(path), sqlitefile.Files(to)
	for i := range from {
		err := os.Rename(from[i], dest[i])
		if err != nil && !(i > 0 && errors.Is(err, fs.ErrNotExist)) {
			return nil, fmt.Errorf("database %s is corrupt (%v) and could not be moved aside: %w", path, reason, err)
		}
	}
	return &MovedAside{Path: path, To: to, Reason: reason}, nil
}
