package testprog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

func TestBuild(t *testing.T) {
	path := testprog.Build(t, "silent")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&0o111 == 0 {
		t.Errorf("%s is not executable", path)
	}
	if again := testprog.Build(t, "silent"); again != path {
		t.Errorf("second Build = %s, want the cached %s", again, path)
	}
}

func TestBuildAll(t *testing.T) {
	dir := t.TempDir()
	if err := testprog.BuildAll(dir, "danger", "echo"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"danger", "echo"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{"no-such-fake", "../fakes", ""} {
		if err := testprog.BuildAll(dir, name); err == nil || !strings.Contains(err.Error(), "fake") {
			t.Errorf("BuildAll(%q) = %v, want an error naming the fake", name, err)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := testprog.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "testdata", "fakes")); err != nil {
		t.Errorf("module root %s has no testdata/fakes: %v", root, err)
	}
}
