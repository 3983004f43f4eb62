package daemon_test

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"
)

// openRaw opens the database at path with no store in between.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
