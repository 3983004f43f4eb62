package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/report"
)

// hostileReason is a model's reason that tries to be markup in each format:
// a script, a table's bar, a new line and an escape sequence.
const hostileReason = "<script>alert(1)</script> | done\n\x1b[2J **yes**"

// answererReport is the live run's report with an answerer that took the
// overwrite question and declined the authorized_keys hand-over, its model
// giving a hostile reason.
func answererReport() *report.Report {
	rep := liveReport()
	conf, low := 0.97, 0.4
	rep.Questions = append([]ask.Question{{
		ID: "q0", Session: "0b6e1d9a4c27", Playbook: "ssh-keygen", Reason: ask.Prompt,
		Text: "Overwrite (y/n)?", Options: []ask.Option{{Label: "y"}, {Label: "n"}}, ScreenHash: "1a2b3c4d5e6f7a8b",
		AskedAt: time.Date(2025, 3, 14, 9, 30, 0, 8_000_000, time.UTC),
		Closed: &ask.Closed{At: time.Date(2025, 3, 14, 9, 30, 0, 9_000_000, time.UTC), How: ask.Answered,
			By: "command model (confidence 0.97): the key is regenerated on purpose", Channel: ask.ChannelAnswerer, Sent: "y\r"},
	}}, rep.Questions...)
	rep.Answerer = []report.AnswererDecision{
		{Question: "q0", Decision: "answered", Model: "command model", Answer: "y", Confidence: &conf, Reason: "the key is regenerated on purpose"},
		{Question: "q1", Decision: "declined", Model: "command model", Answer: "<y>", Confidence: &low, Reason: hostileReason,
			Why: "the question is a hand-over (danger): for people only"},
	}
	return rep
}

// The HTML report has a section of the answerer's decisions, as the
// Markdown one has, with the model's reason escaped; none without an
// answerer.
func TestReportHTMLAnswerer(t *testing.T) {
	t.Parallel()
	var without bytes.Buffer
	if err := liveReport().Write(&without, "html"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(without.String(), "<h2>Answerer</h2>") {
		t.Error("a report without an answerer has its section")
	}
	var page bytes.Buffer
	if err := answererReport().Write(&page, "html"); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{"<h2>Answerer</h2>",
		`<tr class="dec-answered"><td class="nw"><code>q0</code></td><td class="nw">answered</td><td>command model</td><td><code>y</code></td><td class="num">0.97</td><td>the key is regenerated on purpose</td><td></td></tr>`,
		"&lt;script&gt;alert(1)&lt;/script&gt;", "<code>&lt;y&gt;</code>", "hand-over (danger)"} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>") || strings.Contains(html, "\x1b") {
		t.Error("the model's reason is markup or an escape sequence in the HTML")
	}
}

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
