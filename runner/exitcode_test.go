package runner_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestExitCodesDocumented: the exit-code table of docs/running.md lists
// exactly the codes of the Exit constants, each once.
func TestExitCodesDocumented(t *testing.T) {
	t.Parallel()
	consts := exitConstants(t, "exitcode.go")
	if len(consts) == 0 {
		t.Fatal("no Exit constants in exitcode.go")
	}
	page, err := os.ReadFile("../docs/running.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := docsExitCodes(t, string(page))
	for code, name := range consts {
		if !documented[code] {
			t.Errorf("%s = %d is not in the exit-code table of docs/running.md", name, code)
		}
	}
	for _, code := range slices.Sorted(maps.Keys(documented)) {
		if _, ok := consts[code]; !ok {
			t.Errorf("docs/running.md documents exit code %d, which no Exit constant has", code)
		}
	}
}

// exitConstants reads the Exit constants declared in file: each code and its
// name. Two constants of one code fail the test.
func exitConstants(t *testing.T, file string) map[int]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]string{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Exit") {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.INT {
					t.Fatalf("%s: want a number", name.Name)
				}
				code, err := strconv.Atoi(lit.Value)
				if err != nil {
					t.Fatalf("%s: %v", name.Name, err)
				}
				if other, dup := codes[code]; dup {
					t.Errorf("%s and %s are both %d", other, name.Name, code)
				}
				codes[code] = name.Name
			}
		}
	}
	return codes
}

// docsExitCodes reads the codes of the table under "## Exit codes" in page.
func docsExitCodes(t *testing.T, page string) map[int]bool {
	t.Helper()
	_, section, ok := strings.Cut(page, "\n## Exit codes\n")
	if !ok {
		t.Fatal(`docs/running.md has no "## Exit codes" section`)
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	row := regexp.MustCompile(`(?m)^\| *([0-9]+) *\|`)
	codes := map[int]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		code, _ := strconv.Atoi(m[1])
		if codes[code] {
			t.Errorf("docs/running.md lists exit code %d twice", code)
		}
		codes[code] = true
	}
	if len(codes) == 0 {
		t.Fatal("the exit-code table of docs/running.md has no rows")
	}
	return codes
}
