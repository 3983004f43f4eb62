package report

import (
	"slices"
	"strings"
	"testing"
)

// TestBandRects: on a scale of a unit a millisecond, spans narrower than a unit
// are drawn together once they add up to one, in the colour of the state that
// lasted longest (the first on a tie); a rest goes to the wider span after it;
// the final state gets minFinalSpan units.
func TestBandRects(t *testing.T) {
	t.Parallel()
	scale := chartScale{total: 1000}
	for _, tc := range []struct {
		name  string
		spans []span
		want  []bandRect
	}{
		{"the longest state among narrow spans", []span{
			{"a", 0, 0.25}, {"b", 0.25, 0.5}, {"a", 0.5, 0.75}, {"b", 0.75, 1.25}, {"c", 1.25, 1.5}, {"d", 1.5, 500}, {"e", 1000, 1000},
		}, []bandRect{
			{80, 81.25, span{"b", 0, 1.25}, true},
			{81.25, 580, span{"d", 1.25, 500}, false},
			{1074, 1080, span{"e", 1000, 1000}, false},
		}},
		{"a tie goes to the first", []span{{"a", 0, 0.5}, {"b", 0.5, 1}, {"c", 1, 1000}}, []bandRect{
			{80, 81, span{"a", 0, 1}, true},
			{81, 1080, span{"c", 1, 1000}, false},
		}},
	} {
		if got := bandRects(tc.spans, scale); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
	if got := bandRects([]span{{"done", 0, 0}}, chartScale{}); !slices.Equal(got, []bandRect{{80, 1080, span{"done", 0, 0}, false}}) {
		t.Errorf("a run of no time: %v", got)
	}
}

func TestAxisTicks(t *testing.T) {
	t.Parallel()
	label := func(ticks []htmlTick) string {
		var labels []string
		for _, tick := range ticks {
			labels = append(labels, tick.X+" "+tick.Label)
		}
		return strings.Join(labels, ", ")
	}
	for total, want := range map[float64]string{
		0:     "80.0 0 ms",
		0.5:   "80.0 0 ms, 280.0 0.1 ms, 480.0 0.2 ms, 680.0 0.3 ms, 880.0 0.4 ms, 1080.0 0.5 ms",
		49:    "80.0 0 ms, 284.1 10 ms, 488.2 20 ms, 692.2 30 ms, 896.3 40 ms",
		64103: "80.0 0 s, 236.0 10 s, 392.0 20 s, 548.0 30 s, 704.0 40 s, 860.0 50 s, 1016.0 60 s",
	} {
		if got := label(axisTicks(chartScale{total: total})); got != want {
			t.Errorf("%v ms:\n got %s\nwant %s", total, got, want)
		}
	}
}

// TestChartMarks: one marker per lane and bucket of units, whose tooltip counts
// the events it also stands for.
func TestChartMarks(t *testing.T) {
	t.Parallel()
	events := []Event{
		{TimeMS: 0, Event: "send"}, {TimeMS: 1, Event: "would-send"}, {TimeMS: 1, Event: "prompt"},
		{TimeMS: 3, Event: "send"}, {TimeMS: 3, Event: "state"},
	}
	marks, marked, merged := chartMarks(events, chartScale{total: 1000})
	if len(marks) != 3 || marked != 4 || merged != 1 {
		t.Fatalf("%d marks for %d events, %d merged: %+v", len(marks), marked, merged, marks)
	}
	if m := marks[0]; m.Kind != "circle" || m.CX != "80.0" || !strings.HasSuffix(m.Title, "\n(and 1 more events here)") {
		t.Errorf("the first send: %+v", m)
	}
	if m := marks[1]; m.Class != "m-prompt" || m.Points != "81.0,46.0 88.0,53.0 81.0,60.0 74.0,53.0" {
		t.Errorf("the prompt: %+v", m)
	}
	if m := marks[2]; m.CX != "83.0" || strings.Contains(m.Title, "more events") {
		t.Errorf("the second send: %+v", m)
	}
}
