package main

import (
	"debug/elf"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// TestStaticallyLinked: on Linux clai is linked statically (the Makefile's
// STATIC_TAGS, testprog.StaticTags), so that no run maps the dynamic loader
// and libc: about 1 MiB of every run's resident memory
// (docs/performance.md#memory). A package that brings cgo back fails it.
func TestStaticallyLinked(t *testing.T) {
	t.Parallel()
	bin := testprog.BuildCommand(t, "./cmd/clai")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("clai has a %v program header: it is linked dynamically, a package uses cgo (go list -deps -f '{{if .CgoFiles}}{{.ImportPath}}{{end}}' -tags %s ./cmd/clai)", p.Type, testprog.BuildTags())
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("clai loads shared libraries %v", libs)
	}
}
