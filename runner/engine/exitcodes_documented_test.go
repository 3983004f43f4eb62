package engine_test

import (
	"go/token"
	"maps"
	"slices"
	"strconv"
	"testing"
)

// TestExitCodesDocumented: the exit-code table of docs/running.md lists
// exactly the codes of runner/exitcode's constants, each once.
func TestExitCodesDocumented(t *testing.T) {
	t.Parallel()
	consts := map[int]string{}
	for _, c := range packageConstants(t, "../exitcode") {
		if c.value.Kind != token.INT {
			t.Fatalf("%s: want a number", c.name)
		}
		code, err := strconv.Atoi(c.value.Value)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if other, dup := consts[code]; dup {
			t.Errorf("%s and %s are both %d", other, c.name, code)
		}
		consts[code] = c.name
	}
	if len(consts) == 0 {
		t.Fatal("no constants in runner/exitcode")
	}
	documented := map[int]bool{}
	for _, cell := range docTableRows(t, "../../docs/running.md", "## Exit codes") {
		code, err := strconv.Atoi(cell)
		if err != nil {
			t.Fatalf("docs/running.md: exit code %q is no number", cell)
		}
		if documented[code] {
			t.Errorf("docs/running.md lists exit code %d twice", code)
		}
		documented[code] = true
	}
	for code, name := range consts {
		if !documented[code] {
			t.Errorf("%s = %d is not in the exit-code table of docs/running.md", name, code)
		}
	}
	for _, code := range slices.Sorted(maps.Keys(documented)) {
		if _, ok := consts[code]; !ok {
			t.Errorf("docs/running.md documents exit code %d, which no constant of runner/exitcode has", code)
		}
	}
}
