package report_test

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/report"
)

// hostileText is what a program, a playbook or a path could hold to break out
// of the page: the end of a script and a script, an attribute's end and an
// image that runs code, the end of a tooltip and of the picture.
const hostileText = `</script><script>alert(1)</script>"><img src=x onerror=alert(2)>'</title></svg><b onmouseover=alert(3)>`

// reportHolding is the dry run's report with text in every string the program,
// the playbook or the run controls: names, paths, reasons, excerpts, screens,
// sends, rules, steps, states, events and the output errors.
func reportHolding(text string) *report.Report {
	rep := dryRunReport()
	rep.Playbook.Name, rep.Playbook.Path, rep.Mode, rep.Reason = text, text, text, text
	rep.Outcome = engine.State(text)
	rep.Child.Signal = text
	rep.AddOutputError(text, text, errors.New(text))
	with := func(events []report.Event) {
		for i := range events {
			e := &events[i]
			e.Excerpt += text
			e.Screen = text + "\n" + text
			e.Reason += text
			e.Sent += text
			if e.Rule != "" {
				e.Rule += text
			} else {
				e.Step += text
			}
			if e.Event == "state" || e.Event == "finish" {
				e.State += engine.State(text)
			}
		}
	}
	with(rep.Timeline)
	with(rep.DangerHits)
	with(rep.Unanswered)
	rep.Timeline = append(rep.Timeline, report.Event{TimeMS: 64103, Event: engine.EventKind(text), State: engine.State(text)})
	rules := map[string]int{}
	for name, n := range rep.Rules {
		rules[name+text] = n
	}
	rep.Rules = rules
	for i := range rep.NeverFired {
		rep.NeverFired[i] += text
	}
	return rep
}

// tagsOf counts the page's tags and attributes by name.
func tagsOf(page string) map[string]int {
	tags := map[string]int{}
	for _, tag := range regexp.MustCompile(`<[^<>]*>`).FindAllString(page, -1) {
		for _, name := range regexp.MustCompile(`^</?[a-zA-Z!]+|\s[a-zA-Z-]+=`).FindAllString(tag, -1) {
			tags[strings.TrimSpace(name)]++
		}
	}
	return tags
}

// TestReportHTMLEscapesWhatItShows: a report full of text that would end a
// script, an attribute, a tooltip or the picture renders as a page with the
// very tags and attributes of the same report full of plain text; the text
// shows escaped.
func TestReportHTMLEscapesWhatItShows(t *testing.T) {
	t.Parallel()
	page := render(t, reportHolding(hostileText), "html")
	plain := render(t, reportHolding("plain words"), "html")
	if got, want := tagsOf(page), tagsOf(plain); !maps.Equal(got, want) {
		for _, name := range slices.Sorted(maps.Keys(got)) {
			if got[name] != want[name] {
				t.Errorf("%s: %d in the page, %d with plain text", name, got[name], want[name])
			}
		}
	}
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "<img", "<b ", "onerror=alert(2)>", `"><img`} {
		if strings.Contains(lower, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, want := range []string{
		"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;&#39;&lt;/title&gt;&lt;/svg&gt;",
		"<pre>&lt;/script&gt;",  // a screen
		"<code>&lt;/script&gt;", // a path
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page, "</svg>") != strings.Count(plain, "</svg>") || strings.Count(page, "</title>") != strings.Count(plain, "</title>") {
		t.Error("the text ends a picture or a tooltip")
	}
}
