package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// TestRunsSharingOneReport: clai processes that write the same --report at once
// leave a report that is whole, one of theirs: each replaces the file in one step.
func TestRunsSharingOneReport(t *testing.T) {
	t.Parallel()
	clai := testprog.BuildCommand(t, "./cmd/clai")
	dir := t.TempDir()
	pb := filepath.Join(dir, "pb.yaml")
	// Every line is a danger hit, so each report is large and takes many writes.
	err := os.WriteFile(pb, []byte(`version: 1
name: shared
spawn:
  shell: 'i=0; while [ $i -lt 1000 ]; do echo "warning $i: something looked odd"; i=$((i+1)); done'
danger:
  - {name: odd, match: {regex: 'warning \d+'}, action: deny, line: "n", examples: ["warning 1"]}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "shared.json")
	for round := range 3 {
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				log := filepath.Join(dir, fmt.Sprintf("run-%d-%d.log", round, i))
				out, err := exec.CommandContext(t.Context(), clai, "run", "-q", "--log", log, "--report", report, pb).CombinedOutput()
				if err != nil {
					t.Errorf("run %d: %v: %s", i, err, out)
				}
			})
		}
		wg.Wait()
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Outcome    string `json:"outcome"`
			DangerHits []any  `json:"danger_hits"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatalf("round %d: the report is not JSON (%d bytes): %v", round, len(data), err)
		}
		if rep.Outcome != "done" || len(rep.DangerHits) == 0 {
			t.Fatalf("round %d: outcome %q, %d danger hits", round, rep.Outcome, len(rep.DangerHits))
		}
	}
}
