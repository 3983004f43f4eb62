package engine_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forbiddenImport says why the engine may not import path, or returns "" when
// it may: the engine is pure, so it reads no file, terminal or environment, logs
// nothing, drives no program and reads no clock (times come with its calls).
func forbiddenImport(path string) string {
	switch {
	case path == "os" || strings.HasPrefix(path, "os/"):
		return "the operating system"
	case path == "syscall" || strings.HasPrefix(path, "golang.org/x/sys/"):
		return "system calls"
	case strings.HasPrefix(path, "go.uber.org/zap"):
		return "a logger"
	case path == "github.com/clai-sh/clai/runner" || strings.HasPrefix(path, "github.com/clai-sh/clai/runner/eventlog"):
		return "the session"
	case path == "github.com/clai-sh/clai/runner/driver/keys",
		path == "github.com/clai-sh/clai/runner/driver/exitstatus":
		return "" // the key table and how a program ended: values, nothing that runs
	case strings.HasPrefix(path, "github.com/clai-sh/clai/runner/driver"):
		return "a driver"
	case strings.Contains(path, "clock"):
		return "a clock"
	}
	return ""
}

// The engine's own files import nothing that reaches outside it: no os, no
// logger, no driver, no clock.
func TestEngineImportsNothingImpure(t *testing.T) {
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
			if why := forbiddenImport(path); why != "" {
				t.Errorf("%s imports %q: the engine must not depend on %s", name, path, why)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files of the engine found")
	}
}
