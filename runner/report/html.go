package report

import (
	_ "embed"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// This file renders a Report as one self-contained HTML page: no external style
// sheet, script, font or image, so it can be attached to a CI run and opened
// anywhere. The page is the template report.html.tmpl; html/template escapes
// everything the report holds. The timeline picture is laid out in
// chart.go.

// blockExcerpt bounds the excerpt shown in a <pre> block.
const blockExcerpt = 2000

// reportPageSource is the page's template, as embedded in the binary.
//
//go:embed report.html.tmpl
var reportPageSource string

// reportPage is the page's template, parsed the first time a report is
// written as HTML, not at start-up.
var reportPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(reportPageSource))
})

// htmlView is what the page shows, each string ready to be escaped by the
// template.
type htmlView struct {
	Title    string
	Status   string
	Outcome  string
	Summary  []htmlField
	Chart    htmlChart
	States   []htmlLegend
	Markers  []htmlLegend
	Timeline []htmlRow
	Dropped  int
	// DangerDropped counts the danger hits left out of the list.
	DangerDropped int
	Kept          int
	Rules         []htmlRule
	Never         []string
	Danger        []htmlRow
	Prompts       []htmlRow
	// Questions are the questions asked a person; QuestionsDropped counts
	// those left out of the list.
	Questions        []questionRow
	QuestionsDropped int
	// Answerer are the answerer's decisions; none without an answerer.
	Answerer []answererRow
}

// answererRow is a row of the answerer's table: a decision, with the
// model's reply when it gave one.
type answererRow struct {
	Question, Decision, Class, Model, Answer, Confidence, Reason, Why string
}

// htmlField is a line of the summary: a value, after a path shown as code.
type htmlField struct{ Name, Value, Code string }

// htmlLegend is an entry of a legend: a colour, or a marker's shape (Points
// for a polygon, none for a circle).
type htmlLegend struct{ Class, Label, Points string }

// htmlRule is a row of the rules table.
type htmlRule struct {
	Name  string
	Count int
	Class string
}

// htmlRow is a row of an events table.
type htmlRow struct {
	Time, Event, Class, State, RuleStep, Sent, Reason string
	// Excerpt is the one-line excerpt of a row; Block the whole excerpt of a
	// decision, for a <pre> block; Screen the screen it was taken on, folded.
	Excerpt, Block, Screen string
}

// cssClass keeps a class name to letters, digits and dashes.
func cssClass(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		return "other"
	}
	return s
}

// htmlRow is a row of the page's tables for one event.
func (rep *Report) htmlRow(e Event) htmlRow {
	row := htmlRow{
		Time: msString(e.TimeMS), Event: visible(string(e.Event)), Class: "ev-" + cssClass(string(e.Event)), State: visible(stateOf(e)),
		RuleStep: visible(ruleStep(e)), Sent: head(visible(e.Sent), 4*excerptCell),
		Reason: head(visible(reasonOf(e)), 4*excerptCell),
	}
	if e.Screen != "" {
		row.Screen = tail(visibleBlock(e.Screen), blockExcerpt)
	}
	if e.Event.IsDecision() && e.Excerpt != "" {
		row.Block = tail(visibleBlock(e.Excerpt), blockExcerpt)
	} else {
		row.Excerpt = tail(visible(e.Excerpt), excerptCell)
	}
	return row
}

// htmlView gathers what the page shows.
func (rep *Report) htmlView() *htmlView {
	name := rep.Playbook.Name
	if name == "" {
		name = "playbook"
	}
	v := &htmlView{
		Title: visible(name), Status: rep.statusWord(), Outcome: "st-" + cssClass(string(rep.Outcome)),
		Dropped: rep.TimelineDropped, Kept: len(rep.Timeline), Never: rep.NeverFired,
		DangerDropped: rep.DangerHitsDropped,
	}
	pb := htmlField{Name: "Playbook", Code: visible(rep.Playbook.Path)}
	if sha := rep.shortSHA(); sha != "" {
		pb.Value = "sha256 " + sha
	}
	v.Summary = []htmlField{
		pb,
		{Name: "Mode", Value: visible(rep.Mode)},
		{Name: "Outcome", Value: rep.statusWord()},
		{Name: "Exit code", Value: strconv.Itoa(rep.ExitCode)},
		{Name: "Reason", Value: visible(rep.Reason)},
		{Name: "Program", Value: visible(rep.childStatus())},
		{Name: "Duration", Value: rep.duration()},
	}
	if rep.DecidedBy != "" {
		v.Summary = slices.Insert(v.Summary, 5, htmlField{Name: "Decided by", Value: visible(rep.DecidedBy)})
	}
	if at := rep.startedAt(); at != "" {
		v.Summary = append(v.Summary, htmlField{Name: "Started", Value: at})
	}
	if text := rep.outputErrorText(); text != "" {
		v.Summary = append(v.Summary, htmlField{Name: "Not written", Value: visible(text)})
	}
	for _, s := range reportStates {
		v.States = append(v.States, htmlLegend{Class: "st-" + string(s), Label: string(s)})
	}
	if rep.TimelineDropped > 0 {
		v.States = append(v.States, htmlLegend{Class: "st-unknown", Label: "not recorded"})
	}
	v.Markers = []htmlLegend{
		{Class: "m-send", Label: "send"}, {Class: "m-would-send", Label: "would send"},
		{Class: "m-prompt", Label: "prompt", Points: "7,1 13,7 7,13 1,7"},
		{Class: "m-danger", Label: "danger hit", Points: "7,1 13,12 1,12"},
		{Class: "m-timeout", Label: "timeout", Points: "2,2 12,2 12,12 2,12"},
	}
	for _, e := range rep.Timeline {
		v.Timeline = append(v.Timeline, rep.htmlRow(e))
	}
	for _, name := range rep.sortedRules() {
		class := ""
		if rep.Rules[name] == 0 {
			class = "never"
		}
		v.Rules = append(v.Rules, htmlRule{Name: visible(name), Count: rep.Rules[name], Class: class})
	}
	for _, e := range rep.DangerHits {
		v.Danger = append(v.Danger, rep.htmlRow(e))
	}
	for _, e := range rep.Unanswered {
		v.Prompts = append(v.Prompts, rep.htmlRow(e))
	}
	v.Questions, v.QuestionsDropped = rep.questionRows(), rep.QuestionsDropped
	v.Answerer = rep.answererRows()
	v.Chart = rep.chart()
	return v
}

// answererRows are the answerer's decisions as the page shows them: the
// model's answer and its reason are hostile text, made visible and cut
// short, and escaped by the template.
func (rep *Report) answererRows() []answererRow {
	rows := make([]answererRow, 0, len(rep.Answerer))
	for _, d := range rep.Answerer {
		row := answererRow{
			Question: visible(d.Question), Decision: visible(d.Decision), Class: "dec-" + cssClass(d.Decision),
			Model: visible(d.Model), Answer: head(visible(d.Answer), excerptCell),
			Reason: head(visible(d.Reason), 2*excerptCell), Why: head(visible(d.Why), 2*excerptCell),
		}
		if d.Confidence != nil {
			row.Confidence = strconv.FormatFloat(*d.Confidence, 'f', -1, 64)
		}
		rows = append(rows, row)
	}
	return rows
}

// writeHTML writes the report as one self-contained HTML page.
func (rep *Report) writeHTML(w io.Writer) error {
	return reportPage().Execute(w, rep.htmlView())
}
