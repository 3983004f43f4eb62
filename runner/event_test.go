package runner_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLogEventsDocumented checks that the table of log events in
// docs/reports.md names every kind of event, and nothing else.
func TestLogEventsDocumented(t *testing.T) {
	t.Parallel()
	documented := documentedEvents(t, "../docs/reports.md")
	kinds := eventKindConstants(t)
	for _, k := range kinds {
		if !slices.Contains(documented, k) {
			t.Errorf("event kind %q is emitted but not in the table of log events in docs/reports.md", k)
		}
	}
	for _, d := range documented {
		if !slices.Contains(kinds, d) {
			t.Errorf("docs/reports.md lists the log event %q, which is no EventKind", d)
		}
	}
}

// documentedEvents returns the event names in the first column of the table
// under the "Log events" heading.
func documentedEvents(t *testing.T, path string) []string {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### Log events\n")
	if !ok {
		t.Fatalf("%s: no \"### Log events\" section", path)
	}
	code := regexp.MustCompile("`([^`]+)`")
	var names []string
	for line := range strings.Lines(section) {
		if strings.HasPrefix(line, "#") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "event" {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s: the Log events section has no table of events", path)
	}
	return names
}

// eventKindConstants returns the values of the package's constants of type
// EventKind, read from its source so that a new constant cannot be missed.
func eventKindConstants(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			kinds = append(kinds, eventKinds(t, decl)...)
		}
	}
	if len(kinds) == 0 {
		t.Fatal("no constants of type EventKind in the package")
	}
	return kinds
}

// eventKinds returns the values a declaration gives constants of type EventKind.
func eventKinds(t *testing.T, decl ast.Decl) []string {
	t.Helper()
	gen, ok := decl.(*ast.GenDecl)
	if !ok || gen.Tok != token.CONST {
		return nil
	}
	var kinds []string
	for _, spec := range gen.Specs {
		v := spec.(*ast.ValueSpec)
		if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "EventKind" {
			continue
		}
		for _, value := range v.Values {
			lit, ok := value.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("an EventKind constant is not a string literal: %T", value)
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			kinds = append(kinds, s)
		}
	}
	return kinds
}
