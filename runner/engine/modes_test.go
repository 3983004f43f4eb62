package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/engine"
)

// An observation of the program or the person: output, or n bytes typed at
// the terminal, after a wait.
type observation struct {
	after  time.Duration
	output string
	typed  int
}

// runModes feeds the same observations to an engine of each matching mode, in
// virtual time (ticking at each deadline on the way, and for a last wait
// after them), and returns what each sent and the decisions it logged, with
// the observations between them.
func runModes(t *testing.T, settings, body string, obs []observation, last time.Duration) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, mode := range []string{"stream", "screen"} {
		src := "version: 1\nname: modes\nspawn: {command: [x]}\nsettings: {match: " + mode + ", " + settings + "}\n" + body
		pb, findings := playbooks.Parse("modes.yaml", []byte(src))
		if pb == nil {
			t.Fatalf("playbook: %v", findings)
		}
		e := engine.NewEngine(pb, engine.Config{Interactive: true, Rows: 12, Cols: 60})
		now := time.Unix(1_700_000_000, 0)
		var log []string
		take := func(actions []engine.Action) {
			for _, a := range actions {
				switch a := a.(type) {
				case *engine.Send:
					log = append(log, "sent "+string(a.AppendBytes(nil)))
				case *engine.Event:
					if a.Name.IsDecision() {
						log = append(log, string(a.Name)+" "+a.Rule+a.Step)
					}
				}
			}
		}
		wait := func(d time.Duration) {
			end := now.Add(d)
			for {
				next, ok := e.Deadline()
				if !ok || next.After(end) {
					break
				}
				if next.After(now) {
					now = next
				}
				take(e.Tick(now))
			}
			now = end
			take(e.Tick(now))
		}
		take(e.Start(now))
		for i, o := range obs {
			wait(o.after)
			// What each mode did is logged before the observation that
			// followed it.
			log = append(log, fmt.Sprint("observation ", i))
			if o.typed > 0 {
				take(e.Input(now, o.typed))
			}
			if o.output != "" {
				take(e.Output(now, []byte(o.output)))
			}
		}
		wait(last)
		got[mode] = log
	}
	return got
}

// wantSameInModes fails unless both modes sent want, in order, and logged
// the same decisions.
func wantSameInModes(t *testing.T, got map[string][]string, want ...string) {
	t.Helper()
	for mode, log := range got {
		var sent []string
		for _, l := range log {
			if s, ok := strings.CutPrefix(l, "sent "); ok {
				sent = append(sent, s)
			}
		}
		if !slices.Equal(sent, want) {
			t.Errorf("%s sent %q, want %q\nlog: %q", mode, sent, want, log)
		}
	}
	if !slices.Equal(got["stream"], got["screen"]) {
		t.Errorf("the modes differ:\nstream %q\nscreen %q", got["stream"], got["screen"])
	}
}

// The same question, answered by the person at the terminal while clai's
// answer waits out its cooldown, is not answered again by clai in either
// mode, though the screen still shows it; asked again, it is answered once.
func TestModesAnswerOnceWithThePersonsAnswer(t *testing.T) {
	t.Parallel()
	got := runModes(t, "settle: 100ms, min_send_interval: 0s", `
rules:
  - {name: name, match: "Name:", line: "bob", cooldown: 5s, limit: 5}
`, []observation{
		{after: time.Millisecond, output: "Name: "},
		{after: 200 * time.Millisecond, output: "bob\r\n"},
		{after: 10 * time.Millisecond, output: "Name: "},
		{after: 500 * time.Millisecond, typed: 6},
		{after: time.Millisecond, output: "alice\r\nhello alice\r\n"},
		{after: 10 * time.Second, output: "Name: "},
	}, 500*time.Millisecond)
	wantSameInModes(t, got, "bob\r", "bob\r")
}

// What a step's match used up is not matched again in either mode, whether
// or not the step answered: the next step waits for text shown after it. On
// a screen the text stays in sight, but it is no longer fresh.
func TestModesConsumeWhatAStepMatched(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, steps string
		obs         []observation
		want        []string
	}{
		{"the same text twice", `
steps:
  - {expect: "Ready"}
  - {expect: "Ready", line: "go"}
`, []observation{
			{after: time.Millisecond, output: "Ready\r\n"},
			{after: time.Second, output: "Ready\r\n"},
		}, []string{"go\r"}},
		{"text before the match", `
steps:
  - {expect: "Second"}
  - {expect: "First", line: "go"}
`, []observation{
			{after: time.Millisecond, output: "First\r\nSecond\r\n"},
			{after: time.Second, output: "First\r\n"},
		}, []string{"go\r"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := runModes(t, "settle: 100ms, min_send_interval: 0s", c.steps, c.obs, 500*time.Millisecond)
			wantSameInModes(t, got, c.want...)
		})
	}
}

// A deny's refusal answers a prompt shown after the dangerous text, in either
// mode: a question shown before it and not answered yet (a rule's answer
// waits out its cooldown) is not refused, though the screen still shows it.
func TestModesRefuseThePromptAfterTheDanger(t *testing.T) {
	t.Parallel()
	got := runModes(t, "settle: 100ms, min_send_interval: 0s", `
rules:
  - {name: name, match: "Name:", line: "bob", cooldown: 5s, limit: 5}
danger:
  - {name: wipe, match: "rm -rf /", action: deny, line: "n"}
`, []observation{
		{after: time.Millisecond, output: "Name: "},
		{after: 200 * time.Millisecond, output: "bob\r\nName: "},
		{after: 200 * time.Millisecond, output: "\r\nAbout to run: rm -rf /\r\n"},
		{after: time.Second, output: "Proceed? [y/N] "},
	}, 500*time.Millisecond)
	wantSameInModes(t, got, "bob\r", "n\r")
}
