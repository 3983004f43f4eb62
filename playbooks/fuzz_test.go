package playbooks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clai-sh/clai/playbooks/diag"
)

// FuzzParse feeds any bytes to Parse, the entry lint uses: the answer is a
// playbook without errors, or no playbook and at least one error, and every
// finding is placed in the file (a line of it, a column from 1) and says what
// is wrong. Parse's own bounds keep each input's time small; the seeds are the
// bundled examples and the lint fixtures.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"../examples/*.yaml", "../testdata/lint/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	for _, s := range []string{
		"", "version: 1\n", "version: 1\nname: x\nspawn: [sh]\n", "{", "- [\n", "a: &a [*a]\n",
		"version: 1\nname: x\nextends: claude-code\nspawn: [claude]\n",
		"version: 1\nname: x\nspawn: sh\nsteps:\n  - expect: {regex: '(a'}\n",
		"version: 1\nname: x\nspawn: sh\nsteps:\n  - expect: eof\n    timeout: 1h\n",
		"version: 1\nname: x\nspawn: sh\nrules:\n  - when: 'match.text contains'\n",
		"\t\x00\xff---\n...\n%YAML 1.2\n",
	} {
		f.Add([]byte(s))
	}
	const name = "fuzz.yaml"
	f.Fuzz(func(t *testing.T, src []byte) {
		pb, findings := Parse(name, src)
		if pb == nil && !findings.HasErrors() {
			t.Fatalf("no playbook and no error: %v", findings)
		}
		if pb != nil && findings.HasErrors() {
			t.Fatalf("a playbook and errors: %v", findings)
		}
		lines := yamlLines(src)
		for _, d := range findings {
			checkFinding(t, d, name, lines)
		}
		if _, again := Parse(name, src); !slices.Equal(again, findings) {
			t.Fatalf("parsed twice, the findings differ:\n%v\n%v", findings, again)
		}
	})
}

// yamlLines counts the lines of src as YAML does: "\r\n", "\r" and "\n" each
// end one.
func yamlLines(src []byte) int {
	n := 1
	for i, c := range src {
		if c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			n++
		}
	}
	return n
}

// checkFinding fails t unless d is placed in the file named name, of lines
// lines, and says what is wrong, and what to do when it is an error.
func checkFinding(t *testing.T, d diag.Diagnostic, name string, lines int) {
	t.Helper()
	switch {
	case d.File != name:
		t.Fatalf("%v: placed in %q, not in %q", d, d.File, name)
	case d.Line < 1 || d.Line > lines || d.Col < 1:
		t.Fatalf("%v: placed outside the file's %d lines", d, lines)
	case d.Message == "" || d.Rule == "":
		t.Fatalf("%v: no message or no rule", d)
	case d.Severity == diag.Error && d.Hint == "":
		t.Fatalf("%v: an error without a hint", d)
	}
}
