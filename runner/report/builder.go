package report

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// This file builds a Report from the events of a run, as the session feeds
// them, with the run's secrets masked in every text it keeps.

// maxTimeline bounds the events a report keeps, so a long run's report stays small;
// the count of events left out is reported.
const maxTimeline = 10_000

// maxDangerHits bounds the danger hits a report lists, as maxTimeline bounds the
// timeline: the count of hits left out is reported, and Rules counts them all.
const maxDangerHits = 1_000

// maxQuestions bounds the questions a report lists, as maxDangerHits bounds
// the danger hits.
const maxQuestions = 1_000

// Config says how a Builder builds a run's report.
type Config struct {
	// Mode is the run's: ModeLive, ModeDryRun or ModeReplay.
	Mode string
	// NoTimeline leaves the timeline out, for a run whose report is not
	// written; the report still counts the rules and lists the danger hits and
	// unanswered prompts.
	NoTimeline bool
	// Mask masks the run's secrets in every text the report keeps (nil: the
	// texts are kept as they are).
	Mask func(string) string
}

// Builder builds a Report from the events of a run: SetStart when it starts,
// Add each event, Finish with its outcome.
type Builder struct {
	report Report
	// mask masks the run's secrets in a text the report keeps.
	mask  func(string) string
	start time.Time
	// noTimeline leaves the timeline out, for a run whose report is not written.
	noTimeline bool
	// questionAt is where each question listed is in the report's list, by id.
	questionAt map[string]int
}

// NewBuilder begins the report of a run of pb, with every rule of the playbook
// counted at zero.
func NewBuilder(pb *playbooks.Playbook, c Config) *Builder {
	sum := sha256.Sum256(pb.Source)
	mask := c.Mask
	if mask == nil {
		mask = func(s string) string { return s }
	}
	b := &Builder{mask: mask, noTimeline: c.NoTimeline, questionAt: map[string]int{}}
	b.report = Report{
		Version:  1,
		Playbook: Playbook{Name: pb.Name, Path: pb.Path, SHA256: hex.EncodeToString(sum[:])},
		Mode:     c.Mode,
		Rules:    map[string]int{},
		Timeline: []Event{}, NeverFired: []string{}, DangerHits: []Event{}, Unanswered: []Event{},
		Questions: []ask.Question{},
	}
	for _, rule := range pb.Rules {
		b.report.Rules[rule.Name] = 0
	}
	for _, d := range pb.Danger {
		b.report.Rules[d.Name] = 0
	}
	return b
}

// SetStart sets when the run started: the time its events' times count from.
func (b *Builder) SetStart(at time.Time) { b.start = at }

// Start is when the run started, as SetStart set it.
func (b *Builder) Start() time.Time { return b.start }

// Add adds an event of the run to the report, its texts masked: to the
// timeline, and to the danger hits, the unanswered prompts or the questions
// when it is one.
func (b *Builder) Add(e engine.Event) {
	if e.Question != nil {
		b.question(e.Question)
	}
	if b.noTimeline && e.Name != engine.EventDanger && e.Name != engine.EventPrompt {
		return
	}
	re := Event{
		TimeMS: float64(e.At.Microseconds()) / 1000, Event: e.Name, State: e.State, From: e.From,
		Rule: e.Rule, Step: e.Step, Excerpt: b.mask(e.Excerpt), Sent: b.mask(e.Sent),
		Reason: b.mask(e.Reason), Bytes: e.Bytes, Screen: b.mask(e.Screen),
		Channel: e.Channel, By: b.mask(e.By),
	}
	if e.Question != nil {
		re.Question = e.Question.ID
	}
	switch e.Name {
	case engine.EventDanger:
		if len(b.report.DangerHits) < maxDangerHits {
			b.report.DangerHits = append(b.report.DangerHits, re)
		} else {
			b.report.DangerHitsDropped++
		}
	case engine.EventPrompt:
		b.report.Unanswered = append(b.report.Unanswered, re)
	}
	switch {
	case b.noTimeline:
	case len(b.report.Timeline) < maxTimeline:
		b.report.Timeline = append(b.report.Timeline, re)
	default:
		b.report.TimelineDropped++
	}
}

// question lists a question as it opened, or puts it as it closed in its
// place, its texts masked.
func (b *Builder) question(q *ask.Question) {
	m := *q
	m.Detail, m.Text, m.Screen, m.Header = b.mask(m.Detail), b.mask(m.Text), b.mask(m.Screen), b.mask(m.Header)
	m.Options = make([]ask.Option, len(q.Options))
	for i, o := range q.Options {
		m.Options[i] = ask.Option{Label: b.mask(o.Label), Description: b.mask(o.Description)}
	}
	if c := q.Closed; c != nil {
		mc := *c
		mc.By, mc.Sent = b.mask(mc.By), b.mask(mc.Sent)
		m.Closed = &mc
	}
	if i, ok := b.questionAt[q.ID]; ok {
		b.report.Questions[i] = m
		return
	}
	if q.Closed != nil {
		return // the close of a question left out
	}
	if len(b.report.Questions) >= maxQuestions {
		b.report.QuestionsDropped++
		return
	}
	b.questionAt[q.ID] = len(b.report.Questions)
	b.report.Questions = append(b.report.Questions, m)
}

// Finish ends the report at end with the run's outcome: its result, how often
// each rule fired, and how the program ended (nil when that is not known).
func (b *Builder) Finish(res engine.Result, fired map[string]int, child *engine.ExitStatus, end time.Time) *Report {
	rep := &b.report
	rep.StartedAt = b.start
	rep.DurationMS = end.Sub(b.start).Milliseconds()
	rep.Outcome, rep.ExitCode, rep.Reason = res.State, res.ExitCode, b.mask(res.Reason)
	rep.DecidedBy = b.mask(res.DecidedBy)
	if child != nil && !child.PaneClosed {
		rep.Child = &Child{Code: child.Code, Signal: child.Signal}
	}
	for name := range rep.Rules {
		rep.Rules[name] = fired[name]
		if fired[name] == 0 {
			rep.NeverFired = append(rep.NeverFired, name)
		}
	}
	slices.Sort(rep.NeverFired)
	return rep
}
