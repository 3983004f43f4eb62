package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports instead of failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// Fatalf records the failure and ends the goroutine, as testing's does.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// check runs Check in a goroutine of its own, which Fatalf may end.
func check(r *recorder, path, got string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		Check(r, path, got)
	}()
	<-done
}

func TestCheck(t *testing.T) {
	t.Parallel()
	if Update() {
		t.Skip("with -update Check writes instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("one\r\ntwo\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, got string
		want            string // in the failure; "" when Check passes
	}{
		{"the same, CRLF read as LF", path, "one\ntwo\n", ""},
		{"a line differs", path, "one\nthree\n", "line 2:\n    got  \"three\"\n    want \"two\""},
		{"a line more", path, "one\ntwo\nthree\n", "line 3:\n    got  \"three\"\n    want \"\""},
		{"no golden file", filepath.Join(t.TempDir(), "none.golden"), "x", "run make update-golden to create it"},
	}
	for _, c := range cases {
		r := &recorder{TB: t}
		check(r, c.path, c.got)
		switch {
		case c.want == "" && len(r.failures) > 0:
			t.Errorf("%s: Check failed: %q", c.name, r.failures)
		case c.want != "" && (len(r.failures) != 1 || !strings.Contains(r.failures[0], c.want)):
			t.Errorf("%s: Check reported %q, want one failure with %q", c.name, r.failures, c.want)
		}
	}
}

func TestWriteMakesTheFolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new", "out.golden")
	if err := write(path, "fresh\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "fresh\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
}
