package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ xdg, want string }{
		{"/run/user/1000", "/run/user/1000/clai"},
		{"", "/tmp/clai-1000"},
		// A relative XDG_RUNTIME_DIR is ignored, as the XDG specification says.
		{"run/user", "/tmp/clai-1000"},
	} {
		if got := dirFor(c.xdg, "/tmp", 1000); got != c.want {
			t.Errorf("dirFor(%q) = %q, want %q", c.xdg, got, c.want)
		}
	}
}

func TestPrepare(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	prepare := func(t *testing.T, dir, want string) {
		t.Helper()
		err := Prepare(dir)
		if want == "" {
			if err != nil {
				t.Fatalf("Prepare(%s) = %v, want nil", dir, err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Prepare(%s) = %v, want an error saying %q", dir, err, want)
		}
	}
	t.Run("made", func(t *testing.T) {
		dir := filepath.Join(base, "new")
		prepare(t, dir, "")
		fi, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 || !fi.IsDir() {
			t.Fatalf("made %s with mode %v, want a 0700 folder", dir, fi.Mode())
		}
		prepare(t, dir, "") // again: it exists and is fine
	})
	t.Run("mode", func(t *testing.T) {
		dir := filepath.Join(base, "open")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		prepare(t, dir, "has mode 0755, want 0700")
	})
	t.Run("sticky", func(t *testing.T) {
		dir := filepath.Join(base, "sticky")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o700|os.ModeSticky); err != nil {
			t.Fatal(err)
		}
		prepare(t, dir, "has mode 1700, want 0700")
	})
	t.Run("link", func(t *testing.T) {
		target := filepath.Join(base, "target")
		if err := os.Mkdir(target, 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(base, "link")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		prepare(t, link, "is not a folder")
	})
	t.Run("file", func(t *testing.T) {
		file := filepath.Join(base, "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		prepare(t, file, "is not a folder")
	})
	t.Run("owner", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("only root can give a folder to another user")
		}
		dir := filepath.Join(base, "theirs")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		prepare(t, dir, "belongs to uid 65534")
	})
	t.Run("missing parent", func(t *testing.T) {
		prepare(t, filepath.Join(base, "no", "such"), "no such file")
	})
}

func TestCheckMissing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "none")
	if err := Check(dir); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("Check(%s) = %v, want no such file", dir, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Check made %s", dir)
	}
}
