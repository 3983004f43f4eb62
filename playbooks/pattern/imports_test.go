package pattern

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyTheStandardLibrary keeps the package pure: what it builds on
// is Go's standard library alone, never the playbooks that decode patterns
// (nor their YAML parser or findings), so a pattern means the same wherever it
// is used.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	self := false
	for line := range strings.Lines(string(out)) {
		path, standard, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch {
		case path == "github.com/clai-sh/clai/playbooks/pattern":
			self = true
		case standard != "true":
			t.Errorf("the package depends on %s; it may import the standard library only", path)
		}
	}
	if !self {
		t.Fatalf("go list did not list the package itself:\n%s", out)
	}
}
