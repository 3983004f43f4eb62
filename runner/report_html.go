package runner

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
)

// This file renders a Report as one self-contained HTML page: no external style
// sheet, script, font or image, so it can be attached to a CI run and opened
// anywhere. html/template escapes everything the report holds.

// The timeline picture: an SVG of chartWidth by chartHeight user units; the plot
// runs from plotX0 for plotWidth units, a band of bandHeight units at bandY whose
// colour is the state, with one lane of markers per kind of event on it.
const (
	chartWidth  = 1100
	chartHeight = 150
	plotX0      = 80
	plotWidth   = 1000
	bandY       = 20
	bandHeight  = 88
	laneHeight  = bandHeight / 4
	// markerBucket merges the markers of a lane that fall within this many units
	// of each other into one, so the picture holds at most
	// 4 lanes × plotWidth/markerBucket = 2,000 markers however long the run.
	markerBucket = 2
	// minFinalSpan is the width the final state gets even when it lasted no time.
	minFinalSpan = 6
	// blockExcerpt bounds the excerpt shown in a <pre> block.
	blockExcerpt = 2000
)

// reportStates are the states a run goes through, in the legend's order.
var reportStates = []State{Starting, Running, Prompting, Nudging, Manual, Done, TimedOut, Failed, Aborted}

// markerLanes are the lanes of markers, top to bottom.
var markerLanes = []struct{ kind, label string }{
	{"send", "sends"}, {"prompt", "prompts"}, {"danger", "danger"}, {"timeout", "timeouts"},
}

// laneOf is the lane of an event's marker, or -1 for an event without one.
func laneOf(event EventKind) int {
	switch event {
	case EventSend, EventWouldSend:
		return 0
	case EventPrompt:
		return 1
	case EventDanger:
		return 2
	case EventTimeout:
		return 3
	}
	return -1
}

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
}

type htmlField struct{ Name, Value, Code string }

type htmlLegend struct{ Class, Label, Points string }

type htmlRule struct {
	Name  string
	Count int
	Class string
}

type htmlRow struct {
	Time, Event, Class, State, RuleStep, Sent, Reason string
	// Excerpt is the one-line excerpt of a row; Block the whole excerpt of a
	// decision, for a <pre> block; Screen the screen it was taken on, folded.
	Excerpt, Block, Screen string
}

type htmlChart struct {
	// The layout, in SVG user units.
	Width, Height, X0, X1, PlotW, LabelX int
	BandY, BandH, BandBottom, AxisY      int
	LabelY                               int
	// Zero is set for a run that took no time.
	Zero  bool
	Spans []htmlSpan
	Lanes []htmlLane
	Marks []htmlMark
	Ticks []htmlTick
	// Events counts the events with a marker, Merged those drawn by the marker
	// of another event close in time.
	Events, Merged int
}

type htmlSpan struct {
	X, W, Class, Title string
}

type htmlLane struct {
	Y, LabelY, Label string
}

type htmlMark struct {
	Kind, Class, Points, CX, CY, Title string
}

type htmlTick struct{ X, Label string }

// cssClass keeps a class name to letters, digits and dashes.
func cssClass(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		return "other"
	}
	return s
}

// units formats a coordinate.
func units(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func (rep *Report) htmlRow(e ReportEvent) htmlRow {
	row := htmlRow{
		Time: msString(e.TimeMS), Event: visible(string(e.Event)), Class: "ev-" + cssClass(string(e.Event)), State: visible(stateOf(e)),
		RuleStep: visible(ruleStep(e)), Sent: head(visible(e.Sent), 4*excerptCell),
		Reason: head(visible(reasonOf(e)), 4*excerptCell),
	}
	if e.Screen != "" {
		row.Screen = tail(visibleBlock(e.Screen), blockExcerpt)
	}
	if e.Event.isDecision() && e.Excerpt != "" {
		row.Block = tail(visibleBlock(e.Excerpt), blockExcerpt)
	} else {
		row.Excerpt = tail(visible(e.Excerpt), excerptCell)
	}
	return row
}

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
	v.Chart = rep.chart()
	return v
}

// span is a state over a stretch of the run.
type span struct {
	state  string
	t0, t1 float64
}

// chart lays out the timeline picture.
func (rep *Report) chart() htmlChart {
	c := htmlChart{
		Width: chartWidth, Height: chartHeight, X0: plotX0, X1: plotX0 + plotWidth, PlotW: plotWidth, LabelX: plotX0 - 10,
		BandY: bandY, BandH: bandHeight, BandBottom: bandY + bandHeight, AxisY: bandY + bandHeight + 6, LabelY: bandY + bandHeight + 22,
	}
	total := float64(rep.DurationMS)
	last := 0.0
	if n := len(rep.Timeline); n > 0 {
		last = rep.Timeline[n-1].TimeMS
		total = max(total, last)
	}
	c.Zero = total <= 0
	x := func(t float64) float64 {
		if c.Zero {
			return plotX0
		}
		return plotX0 + min(max(t/total, 0), 1)*plotWidth
	}

	// The state over time, from the state events.
	var spans []span
	cur, t0 := string(Starting), 0.0
	for _, e := range rep.Timeline {
		if e.Event != EventState {
			continue
		}
		if e.TimeMS > t0 {
			spans = append(spans, span{cur, t0, e.TimeMS})
		}
		cur, t0 = string(e.State), max(t0, e.TimeMS)
	}
	end := total
	if rep.TimelineDropped > 0 {
		end = last
	}
	spans = append(spans, span{cur, t0, max(t0, end)})
	if rep.TimelineDropped > 0 && total > end {
		spans = append(spans, span{"unknown", end, total})
	}
	if c.Zero {
		spans = []span{{cur, 0, 0}}
	}

	// In units. Spans narrower than one unit are drawn together, in the colour of
	// the state that lasted longest among them, once they add up to a unit; a
	// rest before a wider span goes to that span. So the band holds at most two
	// rectangles per unit of width however often the state changed. The last
	// span, often a final state that lasted no time, is at least minFinalSpan
	// wide.
	type rect struct {
		x0, x1 float64
		span
		mixed bool
	}
	var rects []rect
	var group *rect
	var groupTime map[string]float64
	var groupStates []string
	for i, s := range spans {
		r := rect{x0: x(s.t0), x1: x(s.t1), span: s}
		if i < len(spans)-1 && r.x1-r.x0 < 1 {
			if group == nil {
				group, groupTime, groupStates = &rect{x0: r.x0, span: span{t0: s.t0}, mixed: true}, map[string]float64{}, nil
			}
			group.x1, group.t1 = r.x1, s.t1
			if _, ok := groupTime[s.state]; !ok {
				groupStates = append(groupStates, s.state)
			}
			groupTime[s.state] += s.t1 - s.t0
			if group.x1-group.x0 >= 1 {
				for _, st := range groupStates {
					if group.state == "" || groupTime[st] > groupTime[group.state] {
						group.state = st
					}
				}
				rects = append(rects, *group)
				group = nil
			}
			continue
		}
		if group != nil {
			r.x0, r.t0, group = group.x0, group.t0, nil
		}
		if i == len(spans)-1 {
			if c.Zero {
				r.x0, r.x1 = plotX0, plotX0+plotWidth
			} else if r.x1-r.x0 < minFinalSpan {
				r.x0 = max(plotX0, r.x1-minFinalSpan)
			}
		}
		rects = append(rects, r)
	}
	for _, r := range rects {
		label := r.state
		switch {
		case r.state == "unknown":
			label = "not recorded (the timeline was cut)"
		case r.mixed:
			label = "mostly " + r.state + " (the state changed often)"
		}
		c.Spans = append(c.Spans, htmlSpan{
			X: units(r.x0), W: units(max(r.x1-r.x0, 0)), Class: "st-" + cssClass(r.state),
			Title: fmt.Sprintf("%s: %s – %s ms", visible(label), msString(r.t0), msString(r.t1)),
		})
	}

	for i, l := range markerLanes {
		y := float64(bandY + i*laneHeight)
		c.Lanes = append(c.Lanes, htmlLane{Y: units(y), LabelY: units(y + laneHeight/2 + 4), Label: l.label})
	}

	// The markers: the timeline's events, and the danger hits and prompts past
	// the end of a cut timeline. One marker per lane and bucket of units.
	events := rep.Timeline
	if rep.TimelineDropped > 0 {
		var dangers, prompts int
		for _, e := range rep.Timeline {
			switch e.Event {
			case EventDanger:
				dangers++
			case EventPrompt:
				prompts++
			}
		}
		events = append(append(append([]ReportEvent(nil), events...), rep.DangerHits[min(dangers, len(rep.DangerHits)):]...),
			rep.Unanswered[min(prompts, len(rep.Unanswered)):]...)
	}
	type bucket struct{ lane, n int }
	seen := map[bucket]int{} // index in c.Marks
	counts := []int{}
	for _, e := range events {
		lane := laneOf(e.Event)
		if lane < 0 {
			continue
		}
		c.Events++
		cx := x(e.TimeMS)
		key := bucket{lane, int((cx - plotX0) / markerBucket)}
		if i, ok := seen[key]; ok {
			counts[i]++
			continue
		}
		seen[key] = len(c.Marks)
		counts = append(counts, 1)
		cy := float64(bandY+lane*laneHeight) + laneHeight/2
		m := htmlMark{Kind: laneShape(lane), Class: "m-" + cssClass(string(e.Event)), CX: units(cx), CY: units(cy), Title: markTitle(e)}
		switch lane {
		case 1: // a diamond
			m.Points = points(cx, cy-7, cx+7, cy, cx, cy+7, cx-7, cy)
		case 2: // a triangle
			m.Points = points(cx, cy-7, cx+7, cy+6, cx-7, cy+6)
		case 3: // a square
			m.Points = points(cx-5, cy-5, cx+5, cy-5, cx+5, cy+5, cx-5, cy+5)
		}
		c.Marks = append(c.Marks, m)
	}
	for i, n := range counts {
		if n > 1 {
			c.Marks[i].Title += fmt.Sprintf("\n(and %d more events here)", n-1)
			c.Merged += n - 1
		}
	}

	// The time axis: about eight ticks at round numbers.
	if c.Zero {
		c.Ticks = []htmlTick{{X: units(plotX0), Label: "0 ms"}}
		return c
	}
	mant, exp := niceStep(total / 8)
	seconds := total >= 2000
	for i := 0; ; i++ {
		t := tickValue(i*mant, exp)
		if t > total*1.0001 {
			break
		}
		label := strconv.FormatFloat(t, 'f', -1, 64) + " ms"
		if seconds {
			label = strconv.FormatFloat(tickValue(i*mant, exp-3), 'f', -1, 64) + " s"
		}
		c.Ticks = append(c.Ticks, htmlTick{X: units(x(t)), Label: label})
	}
	return c
}

// laneShape is how a lane draws its markers.
func laneShape(lane int) string {
	if lane == 0 {
		return "circle"
	}
	return "polygon"
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten at least d, as the
// multiplier and the power.
func niceStep(d float64) (mant, exp int) {
	exp = int(math.Floor(math.Log10(d)))
	for {
		for _, m := range []int{1, 2, 5} {
			if tickValue(m, exp) >= d {
				return m, exp
			}
		}
		exp++
	}
}

// tickValue is n × 10^exp, computed so that 3 × 10^-1 is 0.3.
func tickValue(n, exp int) float64 {
	if exp < 0 {
		return float64(n) / math.Pow10(-exp)
	}
	return float64(n) * math.Pow10(exp)
}

func points(xy ...float64) string {
	var b strings.Builder
	for i := 0; i < len(xy); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(units(xy[i]) + "," + units(xy[i+1]))
	}
	return b.String()
}

// markTitle is a marker's tooltip: the event's details on a few lines.
func markTitle(e ReportEvent) string {
	lines := []string{msString(e.TimeMS) + " ms · " + visible(string(e.Event)) + " · " + visible(stateOf(e))}
	if e.Rule != "" {
		lines = append(lines, "rule "+visible(ruleStep(e)))
	} else if e.Step != "" {
		lines = append(lines, visible(ruleStep(e)))
	}
	if e.Excerpt != "" {
		lines = append(lines, "matched: "+tail(visible(e.Excerpt), 2*excerptCell))
	}
	if e.Sent != "" {
		what := "sent: "
		if e.Event == EventWouldSend {
			what = "would send: "
		}
		lines = append(lines, what+head(visible(e.Sent), 2*excerptCell))
	}
	if e.Reason != "" {
		lines = append(lines, head(visible(e.Reason), 2*excerptCell))
	}
	return strings.Join(lines, "\n")
}

// writeHTML writes the report as one self-contained HTML page.
func (rep *Report) writeHTML(w io.Writer) error {
	return reportPage.Execute(w, rep.htmlView())
}

var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>clai report: {{.Title}} — {{.Status}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;margin:0 auto;padding:16px 24px;max-width:1200px}
h1{font-size:22px;margin:8px 0 16px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:0;padding:6px 8px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:16em;overflow:auto}
table{border-collapse:collapse;margin:4px 0}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.nw{white-space:nowrap}
td.x{min-width:24em}
table.summary th{width:9em}
.status{display:inline-block;padding:1px 10px;border-radius:12px;font-size:15px;color:#1f2328;border:1px solid rgba(0,0,0,.2)}
.muted{color:#59636e}
.note{border-left:4px solid #bf8700;background:#fff8c5;padding:6px 10px;margin:8px 0}
tr.never td{color:#59636e}
tr.ev-danger td{background:#ffebe9}
tr.ev-prompt td{background:#fff8c5}
tr.ev-send td,tr.ev-would-send td{background:#ddf4ff}
tr.ev-timeout td{background:#fbefff}
tr.ev-state td{color:#59636e}
svg.chart{width:100%;height:auto;display:block;margin:8px 0}
svg.chart text{font:11px system-ui,sans-serif;fill:#59636e}
svg.chart .tick{stroke:#8c959f;stroke-width:1}
svg.chart .lane{stroke:#fff;stroke-opacity:.6;stroke-width:1}
svg.chart .frame{fill:none;stroke:#8c959f}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:4px 0;font-size:12px}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend svg{width:14px;height:14px}
.st-starting{fill:#e2e8f0;background:#e2e8f0}
.st-running{fill:#93c5fd;background:#93c5fd}
.st-prompting{fill:#fde047;background:#fde047}
.st-nudging{fill:#fdba74;background:#fdba74}
.st-manual{fill:#c4b5fd;background:#c4b5fd}
.st-done{fill:#4ade80;background:#4ade80}
.st-timeout{fill:#f9a8d4;background:#f9a8d4}
.st-failed{fill:#f87171;background:#f87171}
.st-aborted{fill:#b91c1c;background:#b91c1c;color:#fff}
.st-unknown,.st-other{fill:#d4d4d4;background:#d4d4d4}
.m-send{fill:#1d4ed8;stroke:#fff;stroke-width:1}
.m-would-send{fill:#fff;stroke:#1d4ed8;stroke-width:2}
.m-prompt{fill:#a16207;stroke:#fff;stroke-width:1}
.m-danger{fill:#b91c1c;stroke:#fff;stroke-width:1}
.m-timeout{fill:#1f2328;stroke:#fff;stroke-width:1}
</style>
</head>
<body>
<h1>clai report: {{.Title}} <span class="status {{.Outcome}}">{{.Status}}</span></h1>
<table class="summary">
{{- range .Summary}}
<tr><th>{{.Name}}</th><td>{{if .Code}}<code>{{.Code}}</code> {{end}}{{.Value}}</td></tr>
{{- end}}
</table>

<h2>Timeline</h2>
{{- if .Dropped}}
<p class="note">The timeline shows the first {{.Kept}} events; {{.Dropped}} later events were left out.</p>
{{- end}}
{{with .Chart}}
<svg class="chart" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="the state of the run over time, with its sends, prompts, danger hits and timeouts">
<title>The run over time</title>
{{- range .Spans}}
<rect class="{{.Class}}" x="{{.X}}" y="{{$.Chart.BandY}}" width="{{.W}}" height="{{$.Chart.BandH}}"><title>{{.Title}}</title></rect>
{{- end}}
{{- range .Lanes}}
<line class="lane" x1="{{$.Chart.X0}}" x2="{{$.Chart.X1}}" y1="{{.Y}}" y2="{{.Y}}"/>
<text x="{{$.Chart.LabelX}}" y="{{.LabelY}}" text-anchor="end">{{.Label}}</text>
{{- end}}
<rect class="frame" x="{{.X0}}" y="{{.BandY}}" width="{{.PlotW}}" height="{{.BandH}}"/>
{{- range .Ticks}}
<line class="tick" x1="{{.X}}" x2="{{.X}}" y1="{{$.Chart.BandBottom}}" y2="{{$.Chart.AxisY}}"/>
<text x="{{.X}}" y="{{$.Chart.LabelY}}" text-anchor="middle">{{.Label}}</text>
{{- end}}
{{- range .Marks}}
{{- if eq .Kind "circle"}}
<circle class="{{.Class}}" cx="{{.CX}}" cy="{{.CY}}" r="6"><title>{{.Title}}</title></circle>
{{- else}}
<polygon class="{{.Class}}" points="{{.Points}}"><title>{{.Title}}</title></polygon>
{{- end}}
{{- end}}
</svg>
<p class="muted">{{if .Zero}}The run took no time. {{end}}Markers for {{.Events}} sends, prompts, danger hits and timeouts{{if .Merged}}; {{.Merged}} of them are drawn by the marker of an event close in time{{end}}. Hover over the band or a marker for details.</p>
{{- end}}
<div class="legend">
{{- range .States}}
<span><svg viewBox="0 0 14 14"><rect class="{{.Class}}" width="14" height="14"/></svg>{{.Label}}</span>
{{- end}}
</div>
<div class="legend">
{{- range .Markers}}
<span><svg viewBox="0 0 14 14">{{if .Points}}<polygon class="{{.Class}}" points="{{.Points}}"/>{{else}}<circle class="{{.Class}}" cx="7" cy="7" r="5"/>{{end}}</svg>{{.Label}}</span>
{{- end}}
</div>
{{if .Timeline}}
<table class="timeline">
<tr><th>t (ms)</th><th>event</th><th>state</th><th>rule / step</th><th>matched</th><th>sent / would send</th><th>reason</th></tr>
{{- range .Timeline}}
{{template "row" .}}
{{- end}}
</table>
{{else}}
<p>No events.</p>
{{end}}
<h2>Rules</h2>
{{if .Rules}}
<table>
<tr><th>rule</th><th>fired</th></tr>
{{- range .Rules}}
<tr{{if .Class}} class="{{.Class}}"{{end}}><td><code>{{.Name}}</code></td><td class="num">{{.Count}}</td></tr>
{{- end}}
</table>
{{else}}
<p>none</p>
{{end}}
<h2>Never fired</h2>
{{if .Never}}
<ul>
{{- range .Never}}
<li><code>{{.}}</code></li>
{{- end}}
</ul>
{{else}}
<p>none</p>
{{end}}
<h2>Danger hits</h2>
{{- if .DangerDropped}}
<p class="note">The first {{len .Danger}} danger hits are listed; {{.DangerDropped}} later hits were left out (the rules table counts them all).</p>
{{- end}}
{{if .Danger}}
<table>
<tr><th>t (ms)</th><th>event</th><th>state</th><th>rule / step</th><th>matched</th><th>sent / would send</th><th>action</th></tr>
{{- range .Danger}}
{{template "row" .}}
{{- end}}
</table>
{{else}}
<p>none</p>
{{end}}
<h2>Prompts nobody answered</h2>
{{if .Prompts}}
<table>
<tr><th>t (ms)</th><th>event</th><th>state</th><th>rule / step</th><th>question</th><th>sent / would send</th><th>reason</th></tr>
{{- range .Prompts}}
{{template "row" .}}
{{- end}}
</table>
{{else}}
<p>none</p>
{{end}}
</body>
</html>
{{define "row" -}}
<tr class="{{.Class}}"><td class="num">{{.Time}}</td><td class="nw">{{.Event}}</td><td class="nw">{{.State}}</td><td>{{.RuleStep}}</td><td class="x">{{if .Block}}<pre>{{.Block}}</pre>{{else if .Excerpt}}<code>{{.Excerpt}}</code>{{end}}{{if .Screen}}<details><summary>screen</summary><pre>{{.Screen}}</pre></details>{{end}}</td><td>{{if .Sent}}<code>{{.Sent}}</code>{{end}}</td><td>{{.Reason}}</td></tr>
{{- end}}
`))
