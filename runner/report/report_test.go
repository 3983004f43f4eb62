package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/golden"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// reportFormats are the formats a report is written in, by file extension.
var reportFormats = []string{"json", "md", "html"}

// reportSecret is a value that looks like a secret and is set in the environment
// a secret send names; no report may show it.
const reportSecret = "hunter2-Sup3rS3cret!"

// dryRunReport is the report of a dry run of an apt upgrade: two would-sends, a
// danger rule that denies, one that never fired, a rule that never fired, and a
// question nobody answered.
func dryRunReport() *report.Report {
	ev := func(t float64, event engine.EventKind, state engine.State) report.Event {
		return report.Event{TimeMS: t, Event: event, State: state}
	}
	start := ev(0, "start", engine.Starting)
	start.Reason = "apt-upgrade"
	started := ev(0.312, "state", engine.Running)
	started.From, started.Reason = engine.Starting, "program started"
	confirm := ev(41.708, "would-send", engine.Running)
	confirm.Rule, confirm.Excerpt, confirm.Sent = "confirm", "Do you want to continue? [Y/n]", "y\r"
	restart := ev(1502.25, "would-send", engine.Running)
	restart.Rule, restart.Excerpt, restart.Sent = "restart-services", "Restart services during package upgrades without asking? <Yes> | <No>", "keys enter"
	danger := ev(2500.917, "danger", engine.Running)
	danger.Rule, danger.Reason = "purge-config", "deny"
	danger.Excerpt = "Configuration file '/etc/ssh/sshd_config'\r\n ==> Modified (by you or by a script) since installation.\r\n ==> Package distributor has shipped an updated version.\r\n*** sshd_config (Y/I/N/O/D/Z) [default=N] ?"
	deferred := ev(2500.917, "defer", engine.Running)
	deferred.Rule, deferred.Reason = "purge-config", "the refusal waits for the prompt"
	refusal := ev(2801.004, "would-send", engine.Running)
	refusal.Rule, refusal.Excerpt, refusal.Sent = "purge-config", "[default=N] ?", "N\r"
	question := "Which services should be restarted? `ssh` | `cron` [1-2]: "
	prompt := ev(4100.5, "prompt", engine.Running)
	prompt.Excerpt, prompt.Reason = question, "the output stopped at a question for settle (300ms)"
	prompting := ev(4100.5, "state", engine.Prompting)
	prompting.From, prompting.Reason = engine.Running, prompt.Reason
	asked := ev(4100.5, "question", engine.Prompting)
	asked.Question, asked.Excerpt, asked.Reason = "q1", question, "prompt"
	t0 := time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC)
	refused := ev(30000, "refused", engine.Prompting)
	refused.Channel, refused.By, refused.Reason = "cli", "alice", "stale: the screen changed since the answer was given"
	reason := fmt.Sprintf("nobody answered the prompt %q within timeouts.prompt (1m0s)", question)
	closed := ev(64100.5, "closed", engine.Prompting)
	closed.Question, closed.Reason = "q1", "ended"
	finish := ev(64100.5, "finish", engine.Prompting)
	finish.Reason = reason
	exit := ev(64102.75, "exit", engine.Prompting)
	exit.Reason = "exit 143 (terminated)"

	return &report.Report{
		Version: 1,
		Playbook: report.Playbook{
			Name: "apt-upgrade", Path: "playbooks/apt-upgrade.yaml",
			SHA256: "9f2c4e1b7a3d5c6e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9012a3b4c5d6e7",
		},
		Mode:       "dry-run",
		StartedAt:  t0,
		DurationMS: 64103,
		Outcome:    engine.Prompting,
		ExitCode:   exitcode.Manual,
		Reason:     reason,
		Child:      &report.Child{Code: 143, Signal: "terminated"},
		Timeline:   []report.Event{start, started, confirm, restart, danger, deferred, refusal, prompt, prompting, asked, refused, closed, finish, exit},
		Rules: map[string]int{
			"confirm": 1, "restart-services": 1, "keep-config": 0, "purge-config": 1, "wipe-root": 0,
		},
		NeverFired: []string{"keep-config", "wipe-root"},
		DangerHits: []report.Event{danger},
		Unanswered: []report.Event{prompt},
		Questions: []ask.Question{{
			ID: "q1", Session: "5f3a9c1e22b0", Playbook: "apt-upgrade", Reason: ask.Prompt, Detail: prompt.Reason,
			Text: "Which services should be restarted? `ssh` | `cron` [1-2]:", Options: []ask.Option{},
			Screen: "Restarting services...\nWhich services should be restarted? `ssh` | `cron` [1-2]:", ScreenHash: "9a0c3e5b7d1f2468",
			AskedAt: t0.Add(4100500 * time.Microsecond),
			Closed:  &ask.Closed{At: t0.Add(64100500 * time.Microsecond), How: ask.Ended},
		}},
	}
}

// liveReport is the report of a live ssh-keygen run that ended done: a rule
// answers the overwrite question, the steps send the passphrase by reference.
func liveReport() *report.Report {
	ev := func(t float64, event engine.EventKind, state engine.State) report.Event {
		return report.Event{TimeMS: t, Event: event, State: state}
	}
	start := ev(0, "start", engine.Starting)
	start.Reason = "ssh-keygen"
	started := ev(0.2, "state", engine.Running)
	started.From, started.Reason = engine.Starting, "program started"
	overwrite := ev(8.318, "send", engine.Running)
	overwrite.Rule, overwrite.Sent = "overwrite", "y\r"
	overwrite.Excerpt = "/home/ci/.ssh/id_ed25519 already exists.\r\nOverwrite (y/n)? "
	pass := ev(12.5, "send", engine.Running)
	pass.Step, pass.Excerpt, pass.Sent = "passphrase", "Enter passphrase (empty for no passphrase): ", "secret env:PASS"
	again := ev(20.104, "send", engine.Running)
	again.Step, again.Excerpt, again.Sent = "passphrase-again", "Enter same passphrase again: ", "secret env:PASS"
	eof := ev(48.875, "match", engine.Running)
	eof.Step, eof.Excerpt = "fingerprint", "eof"
	exit := ev(48.875, "exit", engine.Running)
	exit.Reason = "exit 0"
	done := ev(48.875, "state", engine.Done)
	done.From, done.Reason = engine.Running, "the program ended: exit 0"
	finish := ev(48.875, "finish", engine.Done)
	finish.Reason = done.Reason

	return &report.Report{
		Version: 1,
		Playbook: report.Playbook{
			Name: "ssh-keygen", Path: "examples/ssh-keygen.yaml",
			SHA256: "0c8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d",
		},
		Mode:       "live",
		StartedAt:  time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC),
		DurationMS: 49,
		Outcome:    engine.Done,
		ExitCode:   exitcode.Done,
		Reason:     done.Reason,
		Child:      &report.Child{Code: 0},
		Timeline:   []report.Event{start, started, overwrite, pass, again, eof, exit, done, finish},
		Rules:      map[string]int{"overwrite": 1, "authorized-keys": 0},
		NeverFired: []string{"authorized-keys"},
		DangerHits: []report.Event{},
		Unanswered: []report.Event{},
		Questions: []ask.Question{{
			ID: "q1", Session: "0b6e1d9a4c27", Playbook: "ssh-keygen", Reason: ask.Danger,
			Detail: `danger rule "authorized-keys" matched "authorized_keys"`,
			Text:   "Append the key to ~/.ssh/authorized_keys? [y/N]", Options: []ask.Option{{Label: "y"}, {Label: "N"}},
			Screen: "Append the key to ~/.ssh/authorized_keys? [y/N]", ScreenHash: "3c5e7a9b1d2f4680",
			AskedAt: time.Date(2025, 3, 14, 9, 30, 0, 30_000_000, time.UTC),
			Closed: &ask.Closed{At: time.Date(2025, 3, 14, 9, 30, 0, 40_000_000, time.UTC), How: ask.Answered,
				By: "alice", Channel: ask.ChannelCLI, Sent: "N\r"},
		}},
	}
}

func render(t *testing.T, rep *report.Report, format string) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.Write(&b, format); err != nil {
		t.Fatalf("Write %s: %v", format, err)
	}
	return b.String()
}

// normalise makes a rendering comparable with its golden file: line ends, and a
// trailing newline.
func normalise(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n") + "\n"
}

func TestReportGolden(t *testing.T) {
	for name, rep := range map[string]*report.Report{"dry-run": dryRunReport(), "live": liveReport(), "answerer": answererReport()} {
		for _, format := range reportFormats {
			t.Run(name+"."+format, func(t *testing.T) {
				got := normalise(render(t, rep, format))
				golden.Check(t, filepath.Join("..", "..", "testdata", "report", name+".golden."+format), got)
			})
		}
	}
}

// TestReportJSONUnchanged: the JSON is the versioned format of before, indented
// by two spaces with a final newline.
func TestReportJSONUnchanged(t *testing.T) {
	t.Parallel()
	rep := dryRunReport()
	want, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := render(t, rep, "json"); got != string(want)+"\n" {
		t.Fatalf("json:\n%s", got)
	}
	var back report.Report
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if back.Version != 1 || back.Outcome != engine.Prompting || len(back.Timeline) != len(rep.Timeline) {
		t.Fatalf("round trip: %+v", back)
	}
}

func TestReportWriteFileByExtension(t *testing.T) {
	t.Parallel()
	rep := liveReport()
	dir := t.TempDir()
	for _, format := range reportFormats {
		path := filepath.Join(dir, "report."+format)
		if err := rep.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != render(t, rep, format) {
			t.Errorf("%s: the file differs from Write", path)
		}
	}
	for _, bad := range []string{"report.txt", "report", "report.markdown"} {
		path := filepath.Join(dir, bad)
		err := rep.WriteFile(path)
		if err == nil {
			t.Fatalf("%s: no error", bad)
		}
		for _, ext := range []string{".json", ".md", ".html"} {
			if !strings.Contains(err.Error(), ext) {
				t.Errorf("%s: the error %q does not name %s", bad, err, ext)
			}
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a file was written", bad)
		}
	}
	for path, want := range map[string]string{"a.json": "json", "b.MD": "md", "dir.v2/c.html": "html", "d.Html": "html"} {
		if got, err := report.FormatOf(path); got != want || err != nil {
			t.Errorf("FormatOf(%q) = %q, %v", path, got, err)
		}
	}
	if err := rep.Write(new(bytes.Buffer), "pdf"); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Fatalf("Write pdf: %v", err)
	}
}

// TestReportShowsOnlyWhatItHolds: the reports show a secret send by reference
// and never read the secret; a secret-looking value held nowhere in the report
// appears in no format.
func TestReportShowsOnlyWhatItHolds(t *testing.T) {
	t.Setenv("PASS", reportSecret)
	for _, rep := range []*report.Report{dryRunReport(), liveReport()} {
		for _, format := range reportFormats {
			out := render(t, rep, format)
			if strings.Contains(out, reportSecret) || strings.Contains(out, "Sup3rS3cret") {
				t.Errorf("%s %s shows the secret", rep.Playbook.Name, format)
			}
			if rep.Mode == "live" && !strings.Contains(out, "secret env:PASS") {
				t.Errorf("%s %s does not show the secret send by reference", rep.Playbook.Name, format)
			}
		}
	}
}

// externalRefs are what would make a page load something: a URL, a src or
// href attribute, a CSS url() or @import, a script, link or embedded element.
var externalRefs = []string{"http://", "https://", " src=", " href=", "url(", "@import", "<script", "<link", "<iframe", "<object", "<embed", "<img"}

func TestReportHTMLSelfContained(t *testing.T) {
	t.Parallel()
	for _, rep := range []*report.Report{dryRunReport(), liveReport(), emptyReport(), nil} {
		var out string
		if rep == nil {
			rep, out = longReport(), longHTML(t)
		} else {
			out = render(t, rep, "html")
		}
		lower := strings.ToLower(out)
		for _, ref := range externalRefs {
			if strings.Contains(lower, ref) {
				t.Errorf("%s: the page refers to something outside it: %q", rep.Playbook.Name, ref)
			}
		}
		if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(out, "<style>") || !strings.Contains(out, "</html>") {
			t.Errorf("%s: not one page with its style", rep.Playbook.Name)
		}
	}
}

// TestReportHTMLPicture: the band has a span per state, each decision row shows
// its excerpt in a <pre> block, markers have tooltips.
func TestReportHTMLPicture(t *testing.T) {
	t.Parallel()
	out := render(t, dryRunReport(), "html")
	svg := chartOf(t, out)
	for _, want := range []string{
		`class="st-running"`, `class="st-prompting"`, // the band
		`class="m-would-send"`, `class="m-danger"`, `class="m-prompt"`, // the markers
		"<title>41.7 ms · would-send · running\nrule confirm\nmatched: Do you want to continue? [Y/n]\nwould send: y⏎</title>",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	for _, want := range []string{
		"<pre>Configuration file &#39;/etc/ssh/sshd_config&#39;\n ==&gt; Modified", // a screen excerpt, lines kept
		"<pre>Which services should be restarted? `ssh` | `cron` [1-2]: </pre>",
		"<code>keys enter</code>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	live := chartOf(t, render(t, liveReport(), "html"))
	for _, want := range []string{
		`<rect class="st-starting" x="80.0" y="20" width="4.1" height="88"><title>starting: 0.0 – 0.2 ms</title></rect>`,
		`<rect class="st-running" x="84.1" y="20" width="993.4" height="88">`,
		`<rect class="st-done" x="1074.0" y="20" width="6.0" height="88">`, // a final state that lasted no time
		`class="m-send"`,
	} {
		if !strings.Contains(live, want) {
			t.Errorf("the live picture lacks %q", want)
		}
	}
	// Every legend entry for the nine states.
	for _, s := range []string{"starting", "running", "prompting", "nudging", "manual", "done", "timeout", "failed", "aborted"} {
		if !strings.Contains(out, `<rect class="st-`+s+`" width="14" height="14"/></svg>`+s+`</span>`) {
			t.Errorf("the legend lacks %s", s)
		}
	}
}

func chartOf(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, `<svg class="chart"`)
	j := strings.Index(page[max(i, 0):], "</svg>")
	if i < 0 || j < 0 {
		t.Fatal("no timeline picture")
	}
	return page[i : i+j]
}

// emptyReport is a run that took no time and recorded nothing, as a hand-made
// report may be: nil slices and maps, no child.
func emptyReport() *report.Report {
	return &report.Report{Version: 1, Playbook: report.Playbook{Name: "empty"}, Mode: "live",
		Outcome: engine.Failed, ExitCode: exitcode.Failed, Reason: "could not start"}
}

// longReport has a full timeline of 10,000 events over ten minutes, 2,500
// left out, and danger hits past the timeline's end.
func longReport() *report.Report {
	rep := &report.Report{Version: 1, Playbook: report.Playbook{Name: "long"}, Mode: "live",
		DurationMS: 600_000, Outcome: engine.TimedOut, ExitCode: exitcode.Timeout, Reason: "timeouts.total",
		Rules: map[string]int{"y": 5000}, TimelineDropped: 2500}
	states := []engine.State{engine.Running, engine.Prompting, engine.Nudging, engine.Manual}
	state := engine.Starting
	for i := range 10_000 {
		e := report.Event{TimeMS: float64(i) * 45, State: state}
		switch i % 5 {
		case 0:
			e.Event, e.Rule, e.Excerpt, e.Sent = "send", "y", "Continue? [y/n] ", "y\r"
		case 1:
			e.Event, e.Excerpt = "prompt", "Password: "
			rep.Unanswered = append(rep.Unanswered, e)
		case 2:
			e.Event, e.Rule, e.Excerpt, e.Reason = "danger", "wipe", "rm -rf /", "manual"
			rep.DangerHits = append(rep.DangerHits, e)
		case 3:
			e.Event, e.Reason = "timeout", "step timeout"
		case 4:
			e.Event, e.From, e.State = "state", state, states[i/5%len(states)]
			state = e.State
		}
		rep.Timeline = append(rep.Timeline, e)
	}
	for i := range 500 {
		rep.DangerHits = append(rep.DangerHits, report.Event{TimeMS: 450_000 + float64(i)*100, Event: "danger", State: state, Rule: "wipe"})
	}
	return rep
}

// longHTML renders longReport once for the tests that look at it.
func longHTML(t *testing.T) string {
	t.Helper()
	page, err := longPage()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

var longPage = sync.OnceValues(func() (string, error) {
	var b strings.Builder
	err := longReport().Write(&b, "html")
	return b.String(), err
})

func TestReportEdgeCases(t *testing.T) {
	t.Parallel()
	empty := emptyReport()
	md := render(t, empty, "md")
	for _, want := range []string{"# clai report: empty — **FAILED**", "No events.", "## Never fired\n\nnone\n", "not started"} {
		if !strings.Contains(md, want) {
			t.Errorf("empty md lacks %q:\n%s", want, md)
		}
	}
	page := render(t, empty, "html")
	if svg := chartOf(t, page); !strings.Contains(svg, `class="st-starting" x="80.0" y="20" width="1000.0"`) {
		t.Errorf("a run of no time is not one span across:\n%s", svg)
	}
	if js := render(t, empty, "json"); !strings.Contains(js, `"timeline": null`) {
		t.Errorf("json of a hand-made report changed: %s", js)
	}

	long := longReport()
	page = longHTML(t)
	svg := chartOf(t, page)
	if marks := strings.Count(svg, "<circle") + strings.Count(svg, "<polygon"); marks > 2000 || marks < 100 {
		t.Errorf("%d markers for 10,000 events", marks)
	}
	if spans := strings.Count(svg, "<rect class=\"st-"); spans > 2001 {
		t.Errorf("%d spans in the band", spans)
	}
	if len(svg) > 1<<20 {
		t.Errorf("the picture of a long run is %d bytes", len(svg))
	}
	if !strings.Contains(svg, `class="st-unknown"`) || !strings.Contains(page, "2500 later events were left out") {
		t.Error("the cut timeline is not shown as cut")
	}
	if !strings.Contains(svg, "<title>450000.0 ms · danger") {
		t.Error("the danger hits past the timeline's end have no marker")
	}
	md = render(t, long, "md")
	if !strings.Contains(md, "the timeline shows the first 10000 events; 2500 later events were left out") {
		t.Error("the md report does not note the cut timeline")
	}
}

// TestReportMarkdownTables: every row of every table has as many cells as its
// header, whatever pipes and line breaks the report holds, and long excerpts
// are cut.
func TestReportMarkdownTables(t *testing.T) {
	t.Parallel()
	rep := dryRunReport()
	long := strings.Repeat("0123456789", 30) + "|end"
	rep.Timeline = append(rep.Timeline, report.Event{TimeMS: 64103, Event: "match", State: engine.Prompting,
		Rule: "a|b", Excerpt: long, Sent: "x|\n`y`", Reason: "one\ntwo | three\x1b[0m"})
	md := render(t, rep, "md")
	unescaped := regexp.MustCompile(`(^|[^\\])\|`)
	cells := -1
	for line := range strings.SplitSeq(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		n := len(unescaped.FindAllString(strings.ReplaceAll(line, "||", "| |"), -1))
		if cells < 0 {
			cells = n
		} else if n != cells {
			t.Errorf("%d cell borders, the header has %d: %s", n, cells, line)
		}
	}
	last := ""
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "| 64103.0 | match") {
			last = line
		}
	}
	for _, want := range []string{"`…", `89\|end`, "`` x\\|␤`y` ``", "one␤two \\| three␛\\[0m", "`a\\|b`"} {
		if !strings.Contains(last, want) {
			t.Errorf("the row lacks %q: %s", want, last)
		}
	}
	if strings.Contains(last, strings.Repeat("0123456789", 9)) {
		t.Errorf("a long excerpt is not cut: %s", last)
	}
}

func BenchmarkReportLongHTML(b *testing.B) {
	rep := longReport()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := rep.Write(&buf, "html"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes")
}
