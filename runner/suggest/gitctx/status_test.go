package gitctx

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStatusTellsBranchAndChangedFiles(t *testing.T) {
	root := newRepo(t)
	write(t, filepath.Join(root, "a.go"), "package a\n")
	write(t, filepath.Join(root, "sub", "b.go"), "package b\n")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "two files")
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := NewResolver(WithClock(clock.Now))

	st, err := r.Status(t.Context(), root, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "main" || st.Dirty || len(st.Unstaged)+len(st.Staged) != 0 {
		t.Fatalf("clean tree: %+v", st)
	}

	write(t, filepath.Join(root, "sub", "b.go"), "package b // changed\n")
	write(t, filepath.Join(root, "new file.txt"), "new\n")
	write(t, filepath.Join(root, "a.go"), "package a // staged\n")
	git(t, root, "add", "a.go")
	git(t, root, "checkout", "-q", "-b", "feature/x")

	if st, _ := r.Status(t.Context(), root, false); st.Dirty {
		t.Fatalf("within the TTL and not refreshed, the status kept is given: %+v", st)
	}
	st, err = r.Status(t.Context(), root, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "feature/x" || !st.Dirty {
		t.Fatalf("branch and dirty: %+v", st)
	}
	if want := []string{"new file.txt", "sub/b.go"}; !slices.Equal(st.Unstaged, want) {
		t.Errorf("unstaged %q, want %q", st.Unstaged, want)
	}
	if want := []string{"a.go"}; !slices.Equal(st.Staged, want) {
		t.Errorf("staged %q, want %q", st.Staged, want)
	}

	git(t, root, "checkout", "-q", "--detach")
	clock.Advance(DefaultTTL)
	if st, _ := r.Status(t.Context(), root, false); st.Branch != "" {
		t.Errorf("a detached HEAD has no branch after the TTL: %+v", st)
	}
}

func TestParseStatusIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("# branch.oid abc\x00# branch.head main\x00")
	for i := range MaxChanged + 10 {
		b.WriteString("? f" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + "\x00")
	}
	b.WriteString("2 R. N... 100644 100644 100644 1111111 2222222 R100 new name.go\x00old name.go\x00")
	st := parseStatus(b.String())
	if len(st.Unstaged) != MaxChanged || !st.Truncated || !st.Dirty {
		t.Fatalf("%d unstaged, truncated %v", len(st.Unstaged), st.Truncated)
	}
	st = parseStatus("2 R. N... 100644 100644 100644 1111111 2222222 R100 new name.go\x00old name.go\x00? u.txt\x00")
	if !slices.Equal(st.Staged, []string{"new name.go"}) || !slices.Equal(st.Unstaged, []string{"u.txt"}) || st.Truncated {
		t.Fatalf("a rename's original path is not an entry: %+v", st)
	}
	if st := parseStatus("# branch.head main\x00? cut-short"); !st.Truncated || len(st.Unstaged) != 0 {
		t.Fatalf("an entry cut by the bound is dropped: %+v", st)
	}
}
