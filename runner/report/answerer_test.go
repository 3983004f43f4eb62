package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/report"
)

// The Markdown report has a section of the answerer's decisions, taken and
// declined, with the model, its confidence and its reason; none without an
// answerer.
func TestReportMarkdownAnswerer(t *testing.T) {
	t.Parallel()
	rep := dryRunReport()
	var without bytes.Buffer
	if err := rep.Write(&without, "md"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(without.String(), "## Answerer") {
		t.Error("a report without an answerer has its section")
	}
	conf := 0.97
	rep.Answerer = []report.AnswererDecision{
		{Question: "q1", Decision: "answered", Model: "command model", Answer: "Y", Confidence: &conf, Reason: "continuing is safe"},
		{Question: "q2", Decision: "declined", Model: "command model", Why: "the question is a hand-over (danger): for people only"},
	}
	var md bytes.Buffer
	if err := rep.Write(&md, "md"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Answerer", "| `q1` | answered | command model | `Y` | 0.97 | continuing is safe |  |",
		"| `q2` | declined | command model |", "hand-over (danger)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
}
