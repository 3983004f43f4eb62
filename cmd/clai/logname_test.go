package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Whatever the playbook's name holds, the default log file is a file of its own
// directly in the log directory, and it can be created.
func TestLogPathIsSafeForAnyName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, name := range []string{
		"demo", "a/b", "../../etc/passwd", "..", ".hidden", "nul\x00byte", "esc\x1b[2Jape\n",
		strings.Repeat("x", 300), strings.Repeat("é", 200), "", "\xff\xfe", "spaces and\ttabs",
	} {
		path := logPath(dir, name, now, 42)
		base := filepath.Base(path)
		if filepath.Dir(path) != dir || strings.HasPrefix(base, ".") || len(base) > 255 || !utf8.ValidString(base) ||
			strings.ContainsFunc(base, func(r rune) bool { return r < ' ' || r == '/' || r == ' ' }) {
			t.Errorf("name %q: log file %q", name, path)
			continue
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
		if err != nil {
			t.Errorf("name %q: %v", name, err)
			continue
		}
		_ = f.Close()
	}
	if got := filepath.Base(logPath(dir, "my app/v2", now, 42)); got != "my-app-v2-20260102-030405-42.jsonl" {
		t.Errorf("log file of %q is %q", "my app/v2", got)
	}
}
