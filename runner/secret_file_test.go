package runner_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
)

// A file: secret is read up to a bound: a device that never ends, or a file
// larger than any secret, is refused by name instead of filling memory.
func TestSecretFileBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	atLimit := filepath.Join(dir, "at-limit")
	overLimit := filepath.Join(dir, "over-limit")
	if err := os.WriteFile(atLimit, []byte(strings.Repeat("k", runner.MaxSecretFileSize-1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overLimit, []byte(strings.Repeat("k", runner.MaxSecretFileSize+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := runner.SecretValue(playbooks.SecretRef{Source: playbooks.SecretFile, Name: atLimit}, nil)
	if err != nil || len(v) != runner.MaxSecretFileSize-1 {
		t.Fatalf("a secret at the limit: %d bytes, %v", len(v), err)
	}
	paths := []string{overLimit}
	if runtime.GOOS == "linux" {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		_, err := runner.SecretValue(playbooks.SecretRef{Source: playbooks.SecretFile, Name: p}, nil)
		if want := "secret file:" + p + ": larger than 64 KiB"; err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	}
}
