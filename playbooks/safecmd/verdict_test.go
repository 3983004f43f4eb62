package safecmd_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks/safecmd"
)

// TestReasonsSayWhy: a refusal names the program and the flag or the shell
// construct that made it, in a few words.
func TestReasonsSayWhy(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		"find . -delete":            "find: -delete deletes files",
		"find /work/proj/x -delete": "find: -delete deletes files",
		"find . '-delete'":          "find: -delete deletes files",
		"git branch -D main":        "git branch: -D deletes a branch",
		"sort -o out in":            "sort: -o writes a file",
		"rg --pre=sh x":             "rg: --pre runs a program on each file",
		"git -c core.pager=x log":   "git: options before the subcommand (-c) are left to a person",
		"ls > x":                    "a redirection (>) writes to a file",
		"cat $(x)":                  "a command substitution ($( ) or backticks) runs a command",
		"cat /etc/passwd":           "cat: /etc/passwd is outside the project",
		"cat ../x":                  `cat: "../x" has a .. component`,
		"ls −la":                    "a character outside ASCII (U+2212), perhaps a look-alike",
		"go test ./...":             "go: runs the project's code",
		"uniq a b":                  "uniq: a second file is its output, which it writes",
		"tee x":                     "tee: not on the allow-list",
		"/bin/ls":                   "/bin/ls: a program named by its path",
		"FOO=1 ls":                  "an assignment (NAME=value) sets a variable of the command",
	} {
		if got := safecmd.ReadOnly(line, "/work/proj"); got.OK || got.Reason != want {
			t.Errorf("ReadOnly(%q) = %+v, want the reason %q", line, got, want)
		}
	}
}

// TestTheProjectHoldsAbsolutePaths: an absolute path is inside the project
// when it is the project or below it, lexically; a project that is not an
// absolute folder other than / holds none.
func TestTheProjectHoldsAbsolutePaths(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line, project string
		ok            bool
	}{
		{"ls /tmp/proj", "/tmp/proj", true},
		{"ls /tmp/proj/", "/tmp/proj", true},
		{"ls /tmp/proj/src", "/tmp/proj/", true},
		{"ls //tmp//proj/./src", "/tmp/proj", true},
		{"ls /tmp/proj2", "/tmp/proj", false},
		{"ls /tmp", "/tmp/proj", false},
		{"ls /tmp/proj/src", "", false},
		{"ls /tmp/proj/src", "tmp/proj", false},
		{"ls /etc", "/", false},
		{"ls src", "", true},
		{"ls src", "/", true},
	} {
		if got := safecmd.ReadOnly(c.line, c.project); got.OK != c.ok {
			t.Errorf("ReadOnly(%q, %q) = %+v, want OK %v", c.line, c.project, got, c.ok)
		}
	}
}

// TestBoundedAndQuick: a line longer than MaxLen is refused, and lines of
// MaxLen bytes of every shape are judged at once, whatever their nesting.
func TestBoundedAndQuick(t *testing.T) {
	// Not parallel: it counts what the whole process allocates.
	if v := safecmd.ReadOnly("ls "+strings.Repeat("a", safecmd.MaxLen), "/p"); v.OK || !strings.Contains(v.Reason, "longer than") {
		t.Errorf("a line over MaxLen: %+v", v)
	}
	// Linear, told without a clock: judging a line four times as long
	// allocates about four times as much (a quadratic judge, sixteen).
	for _, unit := range []string{"ls a ", "ls && ", "ls | ", "(", "$(", "'", "\"", "\\a", "{", "ls -", "git log -", "find . ( ", "a=$((1+", "<<", "${a", "ls ./*"} {
		n := safecmd.MaxLen / len(unit)
		small, large := allocated(strings.Repeat(unit, n/4)), allocated(strings.Repeat(unit, n))
		if large > 8*small+64<<10 {
			t.Errorf("%q × %d allocated %d bytes, × %d %d: more than linear", unit, n, large, n/4, small)
		}
	}
}

// allocated is how many bytes judging line allocates: the least of three
// counts, since the count is the whole process's and anything else that
// allocates meanwhile (the runtime, a goroutine an earlier test left) only
// adds to it.
func allocated(line string) uint64 {
	least := uint64(0)
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		safecmd.ReadOnly(line, "/p")
		safecmd.ProjectCode(line, "/p")
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; i == 0 || n < least {
			least = n
		}
	}
	return least
}

// BenchmarkReadOnly judges a line of MaxLen bytes made of many commands.
func BenchmarkReadOnly(b *testing.B) {
	unit := "git log --oneline -5 -- ./src && "
	line := strings.Repeat(unit, safecmd.MaxLen/len(unit)-1) + "ls"
	for b.Loop() {
		safecmd.ReadOnly(line, "/work/proj")
	}
}
