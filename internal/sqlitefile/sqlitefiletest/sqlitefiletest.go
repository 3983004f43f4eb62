// Package sqlitefiletest holds what tests of clai's SQLite databases share.
package sqlitefiletest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/clai-sh/clai/internal/sqlitefile"
)

// Traces names the files of the database at path (itself, its write-ahead
// log, its shared memory) whose bytes hold marker: what a purge must leave
// nowhere.
func Traces(t testing.TB, path, marker string) []string {
	t.Helper()
	var found []string
	for _, p := range sqlitefile.Files(path) {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(marker)) {
			found = append(found, filepath.Base(p))
		}
	}
	return found
}
