package report_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/report"
)

// builderPlaybook has two rules and a danger rule, for the builder's counts.
const builderPlaybook = `version: 1
name: build
spawn: {command: [x]}
rules:
  - {name: proceed, match: "Proceed?", send: "y\r"}
  - {name: again, match: "Again?", send: "n\r"}
danger:
  - {name: wipe, match: "rm -rf /", action: manual}
`

func parseBuilderPlaybook(t *testing.T) *playbooks.Playbook {
	t.Helper()
	pb, findings := playbooks.Parse("build.yaml", []byte(builderPlaybook))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	return pb
}

// TestBuilderMasksEveryText: each text the report keeps from an event (the
// excerpt, what was sent, the reason, the screen) and the run's reason goes
// through the mask the builder is given; the report shows the mask's work in
// every format.
func TestBuilderMasksEveryText(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-Sup3rS3cret"
	mask := func(s string) string { return strings.ReplaceAll(s, secret, "***") }
	b := report.NewBuilder(parseBuilderPlaybook(t), report.Config{Mode: report.ModeLive, Mask: mask})
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	b.SetStart(start)
	b.Add(engine.Event{Name: engine.EventSend, State: engine.Running, At: time.Second, Rule: "proceed",
		Excerpt: "Proceed? " + secret, Sent: secret + "\r", Screen: "$ " + secret})
	b.Add(engine.Event{Name: engine.EventDanger, State: engine.Manual, At: 2 * time.Second, Rule: "wipe",
		Excerpt: "rm -rf / " + secret, Reason: "typed " + secret})
	b.Add(engine.Event{Name: engine.EventPrompt, State: engine.Prompting, At: 3 * time.Second, Excerpt: secret + "?"})
	rep := b.Finish(engine.Result{State: engine.Aborted, ExitCode: 3, Reason: "ended at " + secret},
		map[string]int{"proceed": 1, "wipe": 1}, nil, start.Add(4*time.Second))
	for _, format := range []string{report.FormatJSON, report.FormatMarkdown, report.FormatHTML} {
		out := render(t, rep, format)
		if strings.Contains(out, secret) {
			t.Errorf("the %s report shows the secret", format)
		}
		if !strings.Contains(out, "***") {
			t.Errorf("the %s report shows no masked text", format)
		}
	}
	if got := rep.Timeline[0].Screen; got != "$ ***" {
		t.Errorf("the screen is %q, want it masked", got)
	}
}

// TestBuilderCounts: every rule of the playbook is counted, those that never
// fired listed by name; the run's times, outcome and program's end are the
// report's; a closed tmux pane leaves how the program ended unknown.
func TestBuilderCounts(t *testing.T) {
	t.Parallel()
	pb := parseBuilderPlaybook(t)
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	b := report.NewBuilder(pb, report.Config{Mode: report.ModeDryRun})
	b.SetStart(start)
	if !b.Start().Equal(start) {
		t.Fatalf("Start is %v, want %v", b.Start(), start)
	}
	rep := b.Finish(engine.Result{State: engine.Done, ExitCode: 0, Reason: "the program ended"},
		map[string]int{"proceed": 2}, &engine.ExitStatus{Code: 143, Signal: "terminated"}, start.Add(1500*time.Millisecond))
	if want := map[string]int{"proceed": 2, "again": 0, "wipe": 0}; !maps.Equal(rep.Rules, want) {
		t.Errorf("rules %v, want %v", rep.Rules, want)
	}
	if want := []string{"again", "wipe"}; !slices.Equal(rep.NeverFired, want) {
		t.Errorf("never fired %v, want %v", rep.NeverFired, want)
	}
	if rep.Mode != "dry-run" || rep.Version != 1 || rep.Playbook.Name != "build" || len(rep.Playbook.SHA256) != 64 {
		t.Errorf("mode %q, version %d, playbook %+v", rep.Mode, rep.Version, rep.Playbook)
	}
	if !rep.StartedAt.Equal(start) || rep.DurationMS != 1500 || rep.Outcome != engine.Done || rep.Reason != "the program ended" {
		t.Errorf("started %v, %d ms, outcome %s (%s)", rep.StartedAt, rep.DurationMS, rep.Outcome, rep.Reason)
	}
	if rep.Child == nil || *rep.Child != (report.Child{Code: 143, Signal: "terminated"}) {
		t.Errorf("child %+v, want exit 143 (terminated)", rep.Child)
	}

	closed := report.NewBuilder(pb, report.Config{Mode: report.ModeLive}).
		Finish(engine.Result{State: engine.Done}, nil, &engine.ExitStatus{Code: -1, PaneClosed: true}, start)
	if closed.Child != nil {
		t.Errorf("a closed pane gives child %+v, want none", closed.Child)
	}
}

// TestBuilderWithoutTimeline: a report without its timeline still lists the
// danger hits and the unanswered prompts.
func TestBuilderWithoutTimeline(t *testing.T) {
	t.Parallel()
	b := report.NewBuilder(parseBuilderPlaybook(t), report.Config{Mode: report.ModeLive, NoTimeline: true})
	for _, name := range []engine.EventKind{engine.EventStart, engine.EventSend, engine.EventDanger, engine.EventPrompt, engine.EventFinish} {
		b.Add(engine.Event{Name: name, State: engine.Running})
	}
	rep := b.Finish(engine.Result{State: engine.Done}, nil, nil, time.Time{})
	if len(rep.Timeline) != 0 || rep.TimelineDropped != 0 || len(rep.DangerHits) != 1 || len(rep.Unanswered) != 1 {
		t.Errorf("timeline %d (%d left out), danger hits %d, unanswered %d; want 0 (0), 1, 1",
			len(rep.Timeline), rep.TimelineDropped, len(rep.DangerHits), len(rep.Unanswered))
	}
}

// TestBuilderCapsTimeline: the timeline keeps the first 10,000 events and
// counts those it leaves out.
func TestBuilderCapsTimeline(t *testing.T) {
	t.Parallel()
	const kept, more = 10_000, 7
	b := report.NewBuilder(parseBuilderPlaybook(t), report.Config{Mode: report.ModeReplay})
	for i := range kept + more {
		b.Add(engine.Event{Name: engine.EventMatch, State: engine.Running, At: time.Duration(i) * time.Millisecond})
	}
	rep := b.Finish(engine.Result{State: engine.Done}, nil, nil, time.Time{})
	if len(rep.Timeline) != kept || rep.TimelineDropped != more {
		t.Errorf("timeline %d, %d left out; want %d, %d", len(rep.Timeline), rep.TimelineDropped, kept, more)
	}
	if last := rep.Timeline[kept-1].TimeMS; last != kept-1 {
		t.Errorf("the last event kept is at %v ms, want %d", last, kept-1)
	}
}

// The report lists each question once, as it closed, its texts masked, also
// when the timeline is left out; the events name the question, the channel
// and who answered.
func TestBuilderListsQuestions(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-Sup3rS3cret"
	mask := func(s string) string { return strings.ReplaceAll(s, secret, "***") }
	for _, noTimeline := range []bool{false, true} {
		b := report.NewBuilder(parseBuilderPlaybook(t), report.Config{Mode: report.ModeLive, Mask: mask, NoTimeline: noTimeline})
		start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		b.SetStart(start)
		q := &ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Token " + secret + "?", Options: []ask.Option{{Label: secret}},
			Screen: "$ " + secret, ScreenHash: "0123456789abcdef", AskedAt: start.Add(time.Second)}
		b.Add(engine.Event{Name: engine.EventQuestion, State: engine.Prompting, At: time.Second, Question: q, Excerpt: q.Text})
		answered := *q
		answered.Closed = &ask.Closed{At: start.Add(2 * time.Second), How: ask.Answered, By: "alice", Channel: ask.ChannelCLI, Sent: secret + "\r"}
		b.Add(engine.Event{Name: engine.EventAnswer, State: engine.Prompting, At: 2 * time.Second, Question: &answered,
			Sent: secret + "\r", Channel: ask.ChannelCLI, By: "alice"})
		rep := b.Finish(engine.Result{State: engine.Done}, nil, nil, start.Add(3*time.Second))
		if len(rep.Questions) != 1 || rep.Questions[0].Closed == nil || rep.Questions[0].Closed.By != "alice" {
			t.Fatalf("questions %+v", rep.Questions)
		}
		if !noTimeline {
			if e := rep.Timeline[1]; e.Question != "q1" || e.Channel != ask.ChannelCLI || e.By != "alice" {
				t.Fatalf("answer event %+v", e)
			}
		}
		for _, format := range []string{report.FormatJSON, report.FormatMarkdown, report.FormatHTML} {
			out := render(t, rep, format)
			if strings.Contains(out, secret) {
				t.Errorf("the %s report shows the secret", format)
			}
			if !strings.Contains(out, "alice") {
				t.Errorf("the %s report does not say who answered", format)
			}
		}
	}
}
