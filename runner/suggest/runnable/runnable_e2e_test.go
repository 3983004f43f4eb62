//go:build e2e

package runnable_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// slots reads each slot as a plain word, as Check does.
var slots = strings.NewReplacer("<path>", "slot", "<num>", "slot", "<sha>", "slot", "<url>", "slot", "<msg>", "slot")

// TestFishCasesAgreeWithFish runs fish's own parser (fish --no-execute) on
// each fish case: it takes the lines the rule takes, and refuses those the
// rule refuses but for the few it parses yet would run as something else.
func TestFishCasesAgreeWithFish(t *testing.T) {
	t.Parallel()
	fish := testprog.RequireProgram(t, "fish", "fish")
	dir := t.TempDir()
	for i, c := range fishCases {
		if c.command == "" {
			continue
		}
		script := filepath.Join(dir, "case.fish")
		line := slots.Replace(c.command)
		if err := os.WriteFile(script, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), fish, "--no-config", "--no-execute", script).CombinedOutput()
		if parses := err == nil; parses != c.fishParses {
			t.Errorf("case %d: fish --no-execute on %q: parses=%v, the case says %v: %s", i, line, parses, c.fishParses, out)
		}
	}
}
