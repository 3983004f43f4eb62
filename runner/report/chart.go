package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clai-sh/clai/runner/engine"
)

// This file lays out the HTML report's timeline picture: a band coloured by
// state over time, lanes of markers for the events on it, and a time axis.
// Each step is a function of its own: the scale (chartScale), the state spans
// (stateSpans), their rectangles (bandRects, bandSpan), the lanes (chartLanes),
// the markers (markedEvents, chartMarks, marker) and the axis (axisTicks).

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
)

// reportStates are the states a run goes through, in the legend's order.
var reportStates = []engine.State{engine.Starting, engine.Running, engine.Prompting, engine.Nudging, engine.Manual, engine.Done, engine.TimedOut, engine.Failed, engine.Aborted}

// markerLanes are the labels of the lanes of markers, top to bottom (see laneOf).
var markerLanes = []string{"sends", "prompts", "danger", "timeouts"}

// laneOf is the lane of an event's marker, or -1 for an event without one.
func laneOf(event engine.EventKind) int {
	switch event {
	case engine.EventSend, engine.EventWouldSend:
		return 0
	case engine.EventPrompt:
		return 1
	case engine.EventDanger:
		return 2
	case engine.EventTimeout:
		return 3
	}
	return -1
}

// htmlChart is the timeline picture as the page draws it.
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

// htmlSpan is a rectangle of the band, with its tooltip.
type htmlSpan struct {
	X, W, Class, Title string
}

// htmlLane is the line above a lane of markers, and the lane's label.
type htmlLane struct {
	Y, LabelY, Label string
}

// htmlMark is a marker: a circle at CX, CY, or a polygon through Points.
type htmlMark struct {
	Kind, Class, Points, CX, CY, Title string
}

// htmlTick is a tick of the time axis.
type htmlTick struct{ X, Label string }

// units formats a coordinate.
func units(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// chart lays out the timeline picture.
func (rep *Report) chart() htmlChart {
	total, last := rep.chartTimes()
	scale := chartScale{total: total}
	c := chartLayout()
	c.Zero = scale.zero()
	for _, r := range bandRects(rep.stateSpans(total, last), scale) {
		c.Spans = append(c.Spans, bandSpan(r))
	}
	c.Lanes = chartLanes()
	c.Marks, c.Events, c.Merged = chartMarks(rep.markedEvents(), scale)
	c.Ticks = axisTicks(scale)
	return c
}

// chartLayout is the picture's fixed geometry.
func chartLayout() htmlChart {
	return htmlChart{
		Width: chartWidth, Height: chartHeight, X0: plotX0, X1: plotX0 + plotWidth, PlotW: plotWidth, LabelX: plotX0 - 10,
		BandY: bandY, BandH: bandHeight, BandBottom: bandY + bandHeight, AxisY: bandY + bandHeight + 6, LabelY: bandY + bandHeight + 22,
	}
}

// chartTimes are the time the picture spans, the run's duration or the time of
// its last event if later, and the time of the last event the timeline kept.
func (rep *Report) chartTimes() (total, last float64) {
	total = float64(rep.DurationMS)
	if n := len(rep.Timeline); n > 0 {
		last = rep.Timeline[n-1].TimeMS
		total = max(total, last)
	}
	return total, last
}

// chartScale maps a time of the run, in milliseconds, to an x coordinate of
// the plot.
type chartScale struct{ total float64 }

// zero reports a run that took no time: everything is drawn at the plot's start.
func (s chartScale) zero() bool { return s.total <= 0 }

// x is the coordinate of time t, kept within the plot.
func (s chartScale) x(t float64) float64 {
	if s.zero() {
		return plotX0
	}
	return plotX0 + min(max(t/s.total, 0), 1)*plotWidth
}

// span is a state over a stretch of the run.
type span struct {
	state  string
	t0, t1 float64
}

// stateSpans is the state over time, from the state events: the last state
// lasts until total, or until last when the timeline was cut, and the rest of
// a cut run is "unknown". A run that took no time is one span of no time.
func (rep *Report) stateSpans(total, last float64) []span {
	var spans []span
	cur, t0 := string(engine.Starting), 0.0
	for _, e := range rep.Timeline {
		if e.Event != engine.EventState {
			continue
		}
		if e.TimeMS > t0 {
			spans = append(spans, span{cur, t0, e.TimeMS})
		}
		cur, t0 = string(e.State), max(t0, e.TimeMS)
	}
	if total <= 0 {
		return []span{{cur, 0, 0}}
	}
	end := total
	if rep.TimelineDropped > 0 {
		end = last
	}
	spans = append(spans, span{cur, t0, max(t0, end)})
	if rep.TimelineDropped > 0 && total > end {
		spans = append(spans, span{"unknown", end, total})
	}
	return spans
}

// bandRect is a rectangle of the band, in units: one span, or spans too narrow
// to draw alone (mixed), in the colour of the state that lasted longest among
// them.
type bandRect struct {
	x0, x1 float64
	span
	mixed bool
}

// bandRects lays the spans out in units. Spans narrower than one unit are drawn
// together once they add up to a unit; a rest before a wider span goes to that
// span. So the band holds at most two rectangles per unit of width however
// often the state changed. The last span is widened by finalRect.
func bandRects(spans []span, scale chartScale) []bandRect {
	var rects []bandRect
	var narrow *narrowSpans
	for i, s := range spans {
		r := bandRect{x0: scale.x(s.t0), x1: scale.x(s.t1), span: s}
		final := i == len(spans)-1
		if !final && r.x1-r.x0 < 1 {
			if narrow == nil {
				narrow = newNarrowSpans(r.x0, s.t0)
			}
			narrow.add(s, r.x1)
			if narrow.full() {
				rects = append(rects, narrow.rect())
				narrow = nil
			}
			continue
		}
		if narrow != nil {
			r.x0, r.t0, narrow = narrow.x0, narrow.t0, nil
		}
		if final {
			r = finalRect(r, scale)
		}
		rects = append(rects, r)
	}
	return rects
}

// narrowSpans gathers spans narrower than one unit into one rectangle.
type narrowSpans struct {
	bandRect
	// lasted is how long each state lasted among them; states are those states
	// in the order they came, which breaks a tie.
	lasted map[string]float64
	states []string
}

func newNarrowSpans(x0, t0 float64) *narrowSpans {
	return &narrowSpans{bandRect: bandRect{x0: x0, span: span{t0: t0}, mixed: true}, lasted: map[string]float64{}}
}

// add takes in span s, which ends at x1.
func (g *narrowSpans) add(s span, x1 float64) {
	g.x1, g.t1 = x1, s.t1
	if _, ok := g.lasted[s.state]; !ok {
		g.states = append(g.states, s.state)
	}
	g.lasted[s.state] += s.t1 - s.t0
}

// full reports whether the spans add up to a unit.
func (g *narrowSpans) full() bool { return g.x1-g.x0 >= 1 }

// rect is the spans' rectangle, in the colour of the state that lasted longest.
func (g *narrowSpans) rect() bandRect {
	r := g.bandRect
	for _, st := range g.states {
		if r.state == "" || g.lasted[st] > g.lasted[r.state] {
			r.state = st
		}
	}
	return r
}

// finalRect widens the band's last rectangle, often a final state that lasted
// no time: across the plot for a run of no time, else to at least minFinalSpan.
func finalRect(r bandRect, scale chartScale) bandRect {
	if scale.zero() {
		r.x0, r.x1 = plotX0, plotX0+plotWidth
	} else if r.x1-r.x0 < minFinalSpan {
		r.x0 = max(plotX0, r.x1-minFinalSpan)
	}
	return r
}

// bandSpan is how the page draws a rectangle of the band, with its tooltip.
func bandSpan(r bandRect) htmlSpan {
	label := r.state
	switch {
	case r.state == "unknown":
		label = "not recorded (the timeline was cut)"
	case r.mixed:
		label = "mostly " + r.state + " (the state changed often)"
	}
	return htmlSpan{
		X: units(r.x0), W: units(max(r.x1-r.x0, 0)), Class: "st-" + cssClass(r.state),
		Title: fmt.Sprintf("%s: %s – %s ms", visible(label), msString(r.t0), msString(r.t1)),
	}
}

// chartLanes are the lines between the lanes of markers, and their labels.
func chartLanes() []htmlLane {
	var lanes []htmlLane
	for i, label := range markerLanes {
		y := float64(bandY + i*laneHeight)
		lanes = append(lanes, htmlLane{Y: units(y), LabelY: units(y + laneHeight/2 + 4), Label: label})
	}
	return lanes
}

// markedEvents are the events the markers stand for: the timeline's, and the
// danger hits and prompts past the end of a cut timeline.
func (rep *Report) markedEvents() []Event {
	if rep.TimelineDropped == 0 {
		return rep.Timeline
	}
	var dangers, prompts int
	for _, e := range rep.Timeline {
		switch e.Event {
		case "danger":
			dangers++
		case "prompt":
			prompts++
		}
	}
	events := append([]Event(nil), rep.Timeline...)
	events = append(events, rep.DangerHits[min(dangers, len(rep.DangerHits)):]...)
	return append(events, rep.Unanswered[min(prompts, len(rep.Unanswered)):]...)
}

// chartMarks places one marker per lane and bucket of markerBucket units: the
// first event that falls there, whose tooltip counts the others. It returns
// the markers, how many events have one, and how many of those are drawn by
// another's marker.
func chartMarks(events []Event, scale chartScale) (marks []htmlMark, marked, merged int) {
	type bucket struct{ lane, n int }
	seen := map[bucket]int{} // index in marks
	var counts []int
	for _, e := range events {
		lane := laneOf(e.Event)
		if lane < 0 {
			continue
		}
		marked++
		cx := scale.x(e.TimeMS)
		key := bucket{lane, int((cx - plotX0) / markerBucket)}
		if i, ok := seen[key]; ok {
			counts[i]++
			continue
		}
		seen[key] = len(marks)
		counts = append(counts, 1)
		marks = append(marks, marker(e, lane, cx))
	}
	for i, n := range counts {
		if n > 1 {
			marks[i].Title += fmt.Sprintf("\n(and %d more events here)", n-1)
			merged += n - 1
		}
	}
	return marks, marked, merged
}

// marker is the marker of event e in its lane at cx: a circle for a send, a
// diamond for a prompt, a triangle for a danger hit, a square for a timeout.
func marker(e Event, lane int, cx float64) htmlMark {
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
	return m
}

// laneShape is how a lane draws its markers.
func laneShape(lane int) string {
	if lane == 0 {
		return "circle"
	}
	return "polygon"
}

// points is an SVG polygon's points from x, y pairs.
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
func markTitle(e Event) string {
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
		if e.Event == engine.EventWouldSend {
			what = "would send: "
		}
		lines = append(lines, what+head(visible(e.Sent), 2*excerptCell))
	}
	if e.Reason != "" {
		lines = append(lines, head(visible(e.Reason), 2*excerptCell))
	}
	return strings.Join(lines, "\n")
}

// axisTicks are the time axis's ticks: about eight at round numbers, in
// seconds for a run of two seconds or more; one at 0 for a run of no time.
func axisTicks(scale chartScale) []htmlTick {
	if scale.zero() {
		return []htmlTick{{X: units(plotX0), Label: "0 ms"}}
	}
	var ticks []htmlTick
	mant, exp := niceStep(scale.total / 8)
	seconds := scale.total >= 2000
	for i := 0; ; i++ {
		t := tickValue(i*mant, exp)
		if t > scale.total*1.0001 {
			break
		}
		ticks = append(ticks, htmlTick{X: units(scale.x(t)), Label: tickLabel(i*mant, exp, seconds)})
	}
	return ticks
}

// tickLabel is the label of the tick at n × 10^exp ms, in ms or in seconds.
func tickLabel(n, exp int, seconds bool) string {
	if seconds {
		return strconv.FormatFloat(tickValue(n, exp-3), 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(tickValue(n, exp), 'f', -1, 64) + " ms"
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
