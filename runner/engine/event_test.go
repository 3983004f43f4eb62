package engine_test

import (
	"regexp"
	"slices"
	"testing"
)

// TestLogEventsDocumented checks that the table of log events in
// docs/reports.md names every kind of event, and nothing else.
func TestLogEventsDocumented(t *testing.T) {
	t.Parallel()
	code := regexp.MustCompile("`([^`]+)`")
	var documented []string
	for _, cell := range docTableRows(t, "../../docs/reports.md", "### Log events") {
		for _, m := range code.FindAllStringSubmatch(cell, -1) {
			documented = append(documented, m[1])
		}
	}
	var kinds []string
	for _, c := range packageConstants(t, ".") {
		if c.typ == "EventKind" {
			kinds = append(kinds, unquote(t, c.value))
		}
	}
	if len(kinds) == 0 {
		t.Fatal("no constants of type EventKind in the package")
	}
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
