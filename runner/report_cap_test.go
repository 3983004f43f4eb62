package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/report"
)

// TestReportCapsDangerHits replays a flood of 20,000 danger hits: the report
// lists the first thousand and says how many it left out, in all three formats,
// while the rules count every hit.
func TestReportCapsDangerHits(t *testing.T) {
	t.Parallel()
	const hits, listed = 20_000, 1_000
	pb, findings := playbooks.Parse("flood.yaml", []byte(floodHeader+`
danger:
  - {name: wipe, match: "rm -rf /", action: manual}
`))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	rec := &cast.Recording{Header: cast.Header{Version: 2, Width: 80, Height: 24}}
	for i := range hits / 100 {
		rec.Events = append(rec.Events, cast.Event{Time: float64(i) / 1000, Kind: cast.KindOutput, Data: strings.Repeat("rm -rf /\n", 100)})
	}
	rep, err := runner.ReplayRecording(context.Background(), pb, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.DangerHits) != listed || rep.DangerHitsDropped != hits-listed || rep.Rules["wipe"] != hits {
		t.Fatalf("%d danger hits listed, %d left out, %d counted; want %d, %d, %d",
			len(rep.DangerHits), rep.DangerHitsDropped, rep.Rules["wipe"], listed, hits-listed, hits)
	}
	js := render(t, rep, "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if n := doc["danger_hits_dropped"]; n != float64(hits-listed) {
		t.Errorf("json danger_hits_dropped is %v, want %d", n, hits-listed)
	}
	note := fmt.Sprintf("%d later hits were left out", hits-listed)
	for _, format := range []string{"md", "html"} {
		if out := render(t, rep, format); !strings.Contains(out, note) {
			t.Errorf("%s does not say %q", format, note)
		}
	}
	// A report of a flood stays the size of one of a thousand hits.
	for _, format := range []string{"json", "md", "html"} {
		if out := render(t, rep, format); len(out) > 4<<20 {
			t.Errorf("the %s report is %d bytes", format, len(out))
		}
	}
}

// floodHeader begins the playbook of a flood: what every playbook has.
const floodHeader = "version: 1\nname: t\nspawn: {command: [x]}\n"

// render is the report in format, as Write writes it.
func render(t *testing.T, rep *report.Report, format string) string {
	t.Helper()
	var b strings.Builder
	if err := rep.Write(&b, format); err != nil {
		t.Fatalf("Write %s: %v", format, err)
	}
	return b.String()
}
