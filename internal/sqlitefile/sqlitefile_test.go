package sqlitefile

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
)

var testMigrations = []string{
	`CREATE TABLE a (x INTEGER)`,
	`CREATE TABLE b (y INTEGER)`,
}

func openTest(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// versions are the versions schema_migrations holds, and user_version.
func versions(t *testing.T, db *sql.DB) ([]int, int) {
	t.Helper()
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	var pragma int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&pragma); err != nil {
		t.Fatal(err)
	}
	return vs, pragma
}

func TestMigrateANewDatabase(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "x.db"))
	for range 2 {
		if err := Migrate(t.Context(), db, testMigrations); err != nil {
			t.Fatal(err)
		}
	}
	if vs, pragma := versions(t, db); len(vs) != 2 || vs[0] != 1 || vs[1] != 2 || pragma != 2 {
		t.Fatalf("versions %v, user_version %d", vs, pragma)
	}
}

// A database that kept its version in user_version alone (the learned
// answers did) goes on from there.
func TestMigrateFromUserVersion(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "x.db"))
	if _, err := db.Exec(testMigrations[0] + `; PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(t.Context(), db, testMigrations); err != nil {
		t.Fatal(err)
	}
	if vs, pragma := versions(t, db); len(vs) != 2 || pragma != 2 {
		t.Fatalf("versions %v, user_version %d", vs, pragma)
	}
	if _, err := db.Exec(`INSERT INTO b VALUES (1)`); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateRefusesANewerDatabase(t *testing.T) {
	t.Parallel()
	db := openTest(t, filepath.Join(t.TempDir(), "x.db"))
	if err := Migrate(t.Context(), db, testMigrations); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(t.Context(), db, testMigrations[:1]); !errors.Is(err, ErrNewer) {
		t.Fatalf("a database of version 2 migrated to 1: %v", err)
	}
}

// Processes that open a new database at once make its tables once.
func TestMigrateAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.db")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		db := openTest(t, path)
		wg.Go(func() { errs <- Migrate(context.Background(), db, testMigrations) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if vs, _ := versions(t, openTest(t, path)); len(vs) != 2 {
		t.Fatalf("versions %v", vs)
	}
}
