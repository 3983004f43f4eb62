package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// constant is a constant declared in the package's source: its name, the name
// of its type (empty when untyped) and its value as written.
type constant struct {
	name, typ string
	value     *ast.BasicLit
}

// packageConstants reads the constants the package's non-test files declare
// with a literal value, so that a test can hold the docs to them and a new one
// cannot be missed.
func packageConstants(t *testing.T, dir string) []constant {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var consts []constant
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, f.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
							consts = append(consts, constant{name.Name, typ, lit})
						}
					}
				}
			}
		}
	}
	return consts
}

// docTableRows returns the first cell of each row of the table in the section
// of the page at path under heading (a whole heading line such as
// "## Exit codes"), up to the next heading; the header and separator rows are
// left out.
func docTableRows(t *testing.T, path, heading string) []string {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(page), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", path, heading)
	}
	var cells []string
	header := true
	for line := range strings.Lines(section) {
		if strings.HasPrefix(line, "#") {
			break
		}
		parts := strings.Split(line, "|")
		if len(parts) < 3 {
			continue
		}
		cell := strings.TrimSpace(parts[1])
		switch {
		case strings.HasPrefix(cell, "---"):
			header = false
		case !header:
			cells = append(cells, cell)
		}
	}
	if len(cells) == 0 {
		t.Fatalf("%s: the %q section has no table", path, heading)
	}
	return cells
}

// unquote is the value of a string literal.
func unquote(t *testing.T, lit *ast.BasicLit) string {
	t.Helper()
	if lit.Kind != token.STRING {
		t.Fatalf("want a string, not %s", lit.Value)
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
