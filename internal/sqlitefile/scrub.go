package sqlitefile

import (
	"context"
	"database/sql"
	"fmt"
)

// Scrubbed says what Scrub did.
type Scrubbed struct {
	// Vacuumed tells that the database was rebuilt, to give back the pages
	// a purge freed.
	Vacuumed bool
	// Pages and FreePages are the database's size in pages before, and how
	// many of them were free.
	Pages, FreePages int64
}

// vacuumShare is the share of free pages from which Scrub vacuums: below
// it the free pages are reused by the next writes, and the copy of the whole
// database a VACUUM makes does not pay.
const vacuumShare = 4 // a quarter

// Scrub makes what a purge deleted unreadable in the files of db, after the
// purge committed: with secure_delete on (Open sets it) the deleted rows
// were overwritten with zeros in the pages written to the write-ahead log;
// Scrub copies those pages into the database and truncates the log, whose
// older frames still hold the rows, to zero bytes. When a quarter of the
// database's pages or more are free, it vacuums first, which rebuilds the
// file without them. Scrub waits for readers of older snapshots (up to
// BusyTimeout) and fails if one keeps the log from being truncated; it must
// not run inside a transaction.
func Scrub(ctx context.Context, db *sql.DB) (Scrubbed, error) {
	var s Scrubbed
	if err := db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&s.Pages); err != nil {
		return s, fmt.Errorf("scrub: %w", err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&s.FreePages); err != nil {
		return s, fmt.Errorf("scrub: %w", err)
	}
	if s.FreePages > 0 && s.FreePages*vacuumShare >= s.Pages {
		if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
			return s, fmt.Errorf("scrub: vacuum: %w", err)
		}
		s.Vacuumed = true
	}
	if err := Checkpoint(ctx, db); err != nil {
		return s, fmt.Errorf("scrub: %w", err)
	}
	return s, nil
}

// Checkpoint copies the write-ahead log of db into the database and
// truncates the log to zero bytes. It fails when a reader kept it from
// finishing.
func Checkpoint(ctx context.Context, db *sql.DB) error {
	var busy, logFrames, done int64
	if err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint: a reader kept %d of %d frames of the write-ahead log from the database; it is truncated at the next purge", logFrames-done, logFrames)
	}
	return nil
}
