package answerer_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/ask"
)

// question is a prompt question on the screen text, with the options given.
func question(text, screen string, options ...string) (ask.Question, ask.Screen) {
	q := ask.Question{ID: "q1", Reason: ask.Prompt, Text: text, Screen: screen, ScreenHash: "h1", Options: []ask.Option{}}
	for _, o := range options {
		q.Options = append(q.Options, ask.Option{Label: o})
	}
	return q, ask.Screen{Text: screen, Hash: "h1"}
}

// gatedPlaybook has a danger rule for rm -rf and an answerer that allows
// everything but passwords.
const gatedPlaybook = `
version: 1
name: gated
spawn: {command: [x]}
danger:
  - name: wipe
    match: {regex: 'rm\s+-rf'}
    action: manual
answerer:
  command: [model]
  min_confidence: 0.9
  deny: [{regex: '(?i)password'}]
`

// fakeDesk is a session's desk whose updates the test sends and whose
// answers it records.
type fakeDesk struct {
	updates chan ask.Update
	screen  ask.Screen
	answers chan ask.Answer
}

func newFakeDesk(screen ask.Screen) *fakeDesk {
	return &fakeDesk{updates: make(chan ask.Update, 8), screen: screen, answers: make(chan ask.Answer, 8)}
}

func (d *fakeDesk) Session() ask.Session                    { return ask.Session{ID: "s1"} }
func (d *fakeDesk) Screen() ask.Screen                      { return d.screen }
func (d *fakeDesk) Watch(context.Context) <-chan ask.Update { return d.updates }
func (d *fakeDesk) Answer(_ context.Context, a ask.Answer) (ask.Sent, error) {
	d.answers <- a
	return ask.Sent{Question: a.Question}, nil
}

// fakeModel replies the same to every request, or fails.
type fakeModel struct {
	reply answerer.Reply
	err   error
	mu    sync.Mutex
	asked int
}

func (m *fakeModel) Name() string { return "fake small" }
func (m *fakeModel) Ask(context.Context, answerer.Request) (answerer.Reply, error) {
	m.mu.Lock()
	m.asked++
	m.mu.Unlock()
	return m.reply, m.err
}

// runWatch feeds the question q on screen to an answerer of gatedPlaybook
// with model, until the run ends, and returns the answers typed and the log.
func runWatch(t *testing.T, model answerer.Model, q ask.Question, screen ask.Screen, dryRun bool, before ...ask.Update) ([]ask.Answer, *observer.ObservedLogs, string) {
	t.Helper()
	pb, findings := playbooks.Parse("p.yaml", []byte(gatedPlaybook))
	if pb == nil {
		t.Fatal(findings)
	}
	core, logs := observer.New(zap.InfoLevel)
	var notices strings.Builder
	logged := make(chan struct{}, 8)
	logger := zap.New(core, zap.Hooks(func(zapcore.Entry) error { logged <- struct{}{}; return nil }))
	a := answerer.New(model, pb.Answerer, pb, answerer.WithLogger(logger), answerer.WithDryRun(dryRun, &notices))
	desk := newFakeDesk(screen)
	for _, u := range before {
		desk.updates <- u
	}
	desk.updates <- ask.Update{Kind: ask.UpdateQuestion, Question: &q}
	a.Watch(desk)
	// The decision is logged once it is taken; then the run ends.
	select {
	case <-logged:
	case <-time.After(30 * time.Second):
		t.Fatal("no decision was logged")
	}
	close(desk.updates)
	a.Close()
	close(desk.answers)
	var typed []ask.Answer
	for ans := range desk.answers {
		typed = append(typed, ans)
	}
	return typed, logs, notices.String()
}

func decision(t *testing.T, logs *observer.ObservedLogs) map[string]any {
	t.Helper()
	entries := logs.FilterField(zap.String("event", answerer.LogEvent)).All()
	if len(entries) != 1 {
		t.Fatalf("%d decisions logged, want 1", len(entries))
	}
	return entries[0].ContextMap()
}

func TestWatchAnswersAConfidentSafeQuestion(t *testing.T) {
	t.Parallel()
	q, screen := question("Continue? [Y/n]", "Continue? [Y/n]", "Y", "n")
	typed, logs, _ := runWatch(t, &fakeModel{reply: answerer.Reply{Answer: "Y", Confidence: 0.97, Reason: "continuing an install is safe"}}, q, screen, false)
	if len(typed) != 1 || typed[0].Choose != "Y" || typed[0].Channel != ask.ChannelAnswerer ||
		!strings.Contains(typed[0].By, "fake small (confidence 0.97): continuing an install is safe") {
		t.Errorf("typed %+v", typed)
	}
	if d := decision(t, logs); d["decision"] != answerer.Answered || d["model"] != "fake small" || d["confidence"] != "0.97" {
		t.Errorf("logged %v", d)
	}
}

func TestWatchLeavesToPeople(t *testing.T) {
	t.Parallel()
	cont, contScreen := question("Continue? [Y/n]", "Continue? [Y/n]", "Y", "n")
	wipe, wipeScreen := question("Proceed? [y/N]", "About to run: rm -rf /\nProceed? [y/N]", "y", "N")
	for _, tc := range []struct {
		name     string
		model    *fakeModel
		q        ask.Question
		screen   ask.Screen
		before   []ask.Update
		decision string
		why      string
	}{
		{"a danger prompt at confidence 1", &fakeModel{reply: answerer.Reply{Answer: "y", Confidence: 1}}, wipe, wipeScreen, nil, answerer.Declined, `danger rule "wipe"`},
		{"a low confidence", &fakeModel{reply: answerer.Reply{Answer: "Y", Confidence: 0.4}}, cont, contScreen, nil, answerer.Declined, "below min_confidence"},
		{"a model that fails", &fakeModel{err: errors.New("command model: no JSON object")}, cont, contScreen, nil, answerer.Failed, "no JSON object"},
		{"a danger since the last answer", &fakeModel{reply: answerer.Reply{Answer: "Y", Confidence: 1}}, cont, contScreen,
			[]ask.Update{{Kind: ask.UpdateDanger, Rule: "wipe", Matched: "rm -rf /"}}, answerer.Declined, "since the last answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			typed, logs, _ := runWatch(t, tc.model, tc.q, tc.screen, false, tc.before...)
			if len(typed) != 0 {
				t.Errorf("typed %+v", typed)
			}
			if d := decision(t, logs); d["decision"] != tc.decision || !strings.Contains(d["why"].(string), tc.why) {
				t.Errorf("logged %v, want %s with %q", d, tc.decision, tc.why)
			}
		})
	}
}

func TestWatchDryRunSaysWhatItWouldAnswer(t *testing.T) {
	t.Parallel()
	q, screen := question("Continue? [Y/n]", "Continue? [Y/n]", "Y", "n")
	typed, logs, notices := runWatch(t, &fakeModel{reply: answerer.Reply{Answer: "y", Confidence: 1, Reason: "safe"}}, q, screen, true)
	if len(typed) != 0 {
		t.Errorf("a dry run typed %+v", typed)
	}
	if d := decision(t, logs); d["decision"] != answerer.WouldAnswer {
		t.Errorf("logged %v", d)
	}
	if !strings.Contains(notices, `would answer q1 "Continue? [Y/n]" with the option "Y"`) {
		t.Errorf("notices %q", notices)
	}
}

// A model reply that is no JSON is quoted in the decision's log line, so
// that a wrapper that writes something else can be debugged.
func TestWatchLogsAnUnusableReply(t *testing.T) {
	t.Parallel()
	q, screen := question("Continue? [Y/n]", "Continue? [Y/n]", "Y", "n")
	model := &answerer.Command{Argv: script(t, `echo 'Traceback: no module named "openai"'`)}
	_, logs, _ := runWatch(t, model, q, screen, false)
	d := decision(t, logs)
	if d["decision"] != answerer.Failed || d["reply"] != `Traceback: no module named "openai"\n` || d["model"] != "command sh model" {
		t.Errorf("logged %v, want failed with the reply quoted", d)
	}
}

// kindsDesk is a fakeDesk that watches kinds: it records those asked for.
type kindsDesk struct {
	*fakeDesk
	kinds chan []string
}

func (d *kindsDesk) WatchKinds(_ context.Context, kinds ...string) <-chan ask.Update {
	d.kinds <- kinds
	return d.updates
}

// The answerer takes of a desk that watches kinds what it needs only: the
// questions, their closing, the danger hits and the first decision after
// each, never clai's other decisions, the screen's changes or the state, so
// that a run's round trips with its program do not wake it.
func TestWatchTakesNoRoundTrips(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("p.yaml", []byte(gatedPlaybook))
	if pb == nil {
		t.Fatal(findings)
	}
	a := answerer.New(&fakeModel{}, pb.Answerer, pb)
	desk := &kindsDesk{fakeDesk: newFakeDesk(ask.Screen{}), kinds: make(chan []string, 1)}
	a.Watch(desk)
	close(desk.updates)
	a.Close()
	var kinds []string
	select {
	case kinds = <-desk.kinds:
	default:
		t.Fatal("the answerer watches every kind of update")
	}
	want := []string{ask.UpdateQuestion, ask.UpdateClosed, ask.UpdateDanger, ask.UpdateDecisionAfterDanger}
	if !slices.Equal(kinds, want) {
		t.Fatalf("the answerer watches %v, want %v", kinds, want)
	}
}
