package safecmd_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyTheShellParser keeps the package pure: it builds on Go's
// standard library and the shell parser (mvdan.cc/sh/v3/syntax, with the
// package of its own it needs) alone, never on the playbooks that call it, so
// that what it approves does not depend on where it is used.
func TestImportsOnlyTheShellParser(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := map[string]bool{
		"github.com/clai-sh/clai/playbooks/safecmd": true,
		"mvdan.cc/sh/v3/syntax":                     true,
		"mvdan.cc/sh/v3/fileutil":                   true,
	}
	self := false
	for line := range strings.Lines(string(out)) {
		path, standard, _ := strings.Cut(strings.TrimSpace(line), " ")
		self = self || path == "github.com/clai-sh/clai/playbooks/safecmd"
		if standard != "true" && !allowed[path] {
			t.Errorf("the package depends on %s; it may import the standard library and mvdan.cc/sh/v3/syntax only", path)
		}
	}
	if !self {
		t.Fatalf("go list did not list the package itself:\n%s", out)
	}
}
