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

// A file: secret is read up to a bound: a device that never ends, or a file
// larger than any secret, is refused by name instead of filling memory.
func TestSecretFileBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	atLimit := filepath.Join(dir, "at-limit")
	overLimit := filepath.Join(dir, "over-limit")
	if err := os.WriteFile(atLimit, []byte(strings.Repeat("k", files.MaxSecretFile-1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overLimit, []byte(strings.Repeat("k", files.MaxSecretFile+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := files.ReadSecret(playbooks.SecretRef{Source: playbooks.SecretFile, Name: atLimit}, nil, filepath.Clean)
	if err != nil || len(v) != files.MaxSecretFile-1 {
		t.Fatalf("a secret at the limit: %d bytes, %v", len(v), err)
	}
	paths := []string{overLimit}
	if runtime.GOOS == "linux" {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		_, err := files.ReadSecret(playbooks.SecretRef{Source: playbooks.SecretFile, Name: p}, nil, filepath.Clean)
		if want := "secret file:" + p + ": larger than 64 KiB"; err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	}
}

// A file: secret is read from the playbook's folder and a missing one is named
// by the full path tried; an empty environment variable is told from an unset one.
func TestReadSecretWhereAndWhy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "key.txt"), []byte("k3y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pb := &playbooks.Playbook{Path: filepath.Join(dir, "pb.yaml")}
	file := func(name string) playbooks.SecretRef {
		return playbooks.SecretRef{Source: playbooks.SecretFile, Name: name}
	}
	if v, err := files.ReadSecret(file("key.txt"), nil, pb.ResolvePath); err != nil || v != "k3y" {
		t.Errorf("file:key.txt = %q, %v", v, err)
	}
	_, err := files.ReadSecret(file("none.txt"), nil, pb.ResolvePath)
	if want := "secret file:none.txt: " + filepath.Join(dir, "none.txt") + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	env := playbooks.SecretRef{Source: playbooks.SecretEnv, Name: "PASS"}
	for environ, want := range map[string]string{
		"":      "secret env:PASS: the environment variable is not set",
		"PASS=": "secret env:PASS: the environment variable is empty",
	} {
		if _, err := files.ReadSecret(env, []string{environ}, pb.ResolvePath); err == nil || err.Error() != want {
			t.Errorf("environ %q: got %v, want %s", environ, err, want)
		}
	}
}
