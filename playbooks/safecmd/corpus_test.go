package safecmd_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks/safecmd"
)

// corpusLine is one command of a corpus file, with where it is.
type corpusLine struct {
	where string
	cmd   string
}

// readCorpus reads a corpus file of testdata: one command a line, # comments,
// go:"…" for a Go-quoted command, and the project in a "# project: PATH" line.
func readCorpus(t testing.TB, name string) (lines []corpusLine, project string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		where := path + ":" + strconv.Itoa(n)
		switch {
		case strings.HasPrefix(line, "# project: "):
			project = strings.TrimPrefix(line, "# project: ")
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "go:"):
			cmd, err := strconv.Unquote(strings.TrimPrefix(line, "go:"))
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			lines = append(lines, corpusLine{where, cmd})
		default:
			lines = append(lines, corpusLine{where, line})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if project == "" {
		t.Fatalf("%s names no project (# project: PATH)", path)
	}
	return lines, project
}

// TestCorpusRefused: no command of testdata/refused.txt is approved, by either
// function, and each refusal says why.
func TestCorpusRefused(t *testing.T) {
	t.Parallel()
	lines, project := readCorpus(t, "refused.txt")
	if len(lines) < 200 {
		t.Fatalf("refused.txt holds %d commands, want at least 200", len(lines))
	}
	for _, l := range lines {
		for name, judge := range map[string]func(string, string) safecmd.Verdict{"ReadOnly": safecmd.ReadOnly, "ProjectCode": safecmd.ProjectCode} {
			v := judge(l.cmd, project)
			if v.OK {
				t.Errorf("%s: %s approves %q", l.where, name, l.cmd)
			} else if v.Reason == "" {
				t.Errorf("%s: %s refuses %q without a reason", l.where, name, l.cmd)
			}
		}
	}
}

// TestCorpusReadOnly: every command of testdata/readonly.txt is approved by
// ReadOnly, and by ProjectCode, which approves what ReadOnly does.
func TestCorpusReadOnly(t *testing.T) {
	t.Parallel()
	lines, project := readCorpus(t, "readonly.txt")
	if len(lines) < 60 {
		t.Fatalf("readonly.txt holds %d commands, want at least 60", len(lines))
	}
	for _, l := range lines {
		if v := safecmd.ReadOnly(l.cmd, project); !v.OK {
			t.Errorf("%s: ReadOnly refuses %q: %s", l.where, l.cmd, v.Reason)
		}
		if v := safecmd.ProjectCode(l.cmd, project); !v.OK {
			t.Errorf("%s: ProjectCode refuses %q: %s", l.where, l.cmd, v.Reason)
		}
	}
}

// TestCorpusProjectCode: every command of testdata/projectcode.txt runs the
// project's code: ProjectCode approves it, ReadOnly does not.
func TestCorpusProjectCode(t *testing.T) {
	t.Parallel()
	lines, project := readCorpus(t, "projectcode.txt")
	for _, l := range lines {
		if v := safecmd.ProjectCode(l.cmd, project); !v.OK {
			t.Errorf("%s: ProjectCode refuses %q: %s", l.where, l.cmd, v.Reason)
		}
		if v := safecmd.ReadOnly(l.cmd, project); v.OK {
			t.Errorf("%s: ReadOnly approves %q, which runs the project's code", l.where, l.cmd)
		}
	}
}
