package files_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
)

// Lint and Load read a playbook file up to playbooks.MaxFileSize: a larger file, or a device
// that never ends, is the same finding, never a read of it all.
func TestReadPlaybookBounded(t *testing.T) {
	t.Parallel()
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte("a: "+strings.Repeat("x", playbooks.MaxFileSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{big}
	if runtime.GOOS == "linux" {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		want := p + ":1:1: error: the file is larger than 1 MiB, the most a playbook may hold [limits]"
		res := files.Lint([]string{p})
		if len(res.Findings) != 1 || res.Findings[0].String() != want || res.Findings[0].Hint == "" {
			t.Errorf("lint %s: %v", p, res.Findings)
		}
		_, err := files.Load(p)
		if err == nil || err.Error() != want {
			t.Errorf("load %s: %v", p, err)
		}
	}
}
