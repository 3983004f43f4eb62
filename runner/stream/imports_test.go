package stream_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports are all the stripper's files may import: it turns bytes into
// text and nothing else, so it reads no file, environment or clock and logs
// nothing; what a character's width is comes from a pure table.
var allowedImports = map[string]bool{
	"bytes":                                  true,
	"encoding/binary":                        true,
	"unicode/utf8":                           true,
	"github.com/clai-sh/clai/internal/glyph": true,
	"github.com/clipperhouse/displaywidth":   true,
}

// The stripper's own files import only what allowedImports lists.
func TestStripperImportsNothingImpure(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if !allowedImports[path] {
				t.Errorf("%s imports %q: the stripper imports only pure packages", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files of the stripper found")
	}
}
