package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// undocumented lists the exported declarations of the module's non-test
// files (main packages' own names left out) that have no doc comment, as
// file:line: name.
func undocumented(t *testing.T) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	eachSource(t, func(rel string, src []byte) {
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			return
		}
		say := func(pos token.Pos, name string) {
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, fset.Position(pos).Line, name))
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Doc != nil {
					continue
				}
				if d.Recv != nil && !exportedReceiver(d.Recv) {
					continue
				}
				say(d.Pos(), d.Name.Name)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
							say(s.Pos(), s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
								say(n.Pos(), n.Name)
							}
						}
					}
				}
			}
		}
	})
	return out
}

// exportedReceiver reports whether a method's receiver type is exported: a
// method of an unexported type is no exported name.
func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return true
		}
	}
}

// TestEveryExportedNameIsDocumented: every exported name of clai's packages
// says what it is: a doc comment on each exported function, method, type,
// variable and constant (a group's comment counts for its members).
func TestEveryExportedNameIsDocumented(t *testing.T) {
	for _, u := range undocumented(t) {
		t.Errorf("%s has no doc comment", u)
	}
}
