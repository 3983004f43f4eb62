package engine_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// castOutput is what a recorded program wrote, as an asciicast v2 file
// holds it: each write with its time since the start.
type castOutput struct {
	at   time.Duration
	data string
}

// readCastOutput returns the writes of the cast at path.
func readCastOutput(t *testing.T, path string) []castOutput {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []castOutput
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan() // the header
	for sc.Scan() {
		var ev [3]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if ev[1] == "o" {
			out = append(out, castOutput{time.Duration(ev[0].(float64) * float64(time.Second)), ev[2].(string)})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Claude Code 2.1.197 as recorded: once the preset answers its folder-trust
// dialog, it marks the option taken (✔) and keeps the dialog on screen for
// 0.7s, longer than settle, before it moves on. The redrawn dialog still asks
// with the line answered, where it was: it is the answered question, and no
// new question opens. A dialog that stays redrawn past redrawWait is asked.
func TestRedrawnAnsweredDialogIsNoQuestion(t *testing.T) {
	t.Parallel()
	preset, err := os.ReadFile("../../playbooks/presets/claude-code.yaml")
	if err != nil {
		t.Fatal(err)
	}
	writes := readCastOutput(t, "../../testdata/screens/claude-code-2.1.197-permissions/sudo.cast")
	// The write that draws the ✔, and the one that draws the next screen.
	marked := -1
	for i, w := range writes {
		if marked < 0 && containsAll(w.data, "Yes, I trust this folder", "✔") {
			marked = i
		}
	}
	if marked < 0 || marked+3 > len(writes) {
		t.Fatal("the cast has no trust dialog marked as answered")
	}
	for _, c := range []struct {
		name string
		// until is the writes fed; then the program is still for stillFor.
		until    int
		stillFor time.Duration
		asked    bool
	}{
		{"moves on after 0.7s", marked + 3, 5 * time.Second, false},
		{"stays redrawn", marked + 1, 5 * time.Second, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, string(preset), engine.Config{Rows: 24, Cols: 80})
			var at time.Duration
			for _, w := range writes[:c.until] {
				s.out(w.at-at, w.data)
				at = w.at
			}
			s.advance(c.stillFor)
			if fired := s.fired("trust-folder"); fired != 1 {
				t.Fatalf("trust-folder fired %d times\n%s", fired, s.timeline())
			}
			qs := s.questions(engine.EventQuestion)
			if !c.asked && len(qs) != 0 {
				t.Fatalf("questions opened %+v\n%s", qs, s.timeline())
			}
			if c.asked && (len(qs) != 1 || qs[0].Reason != ask.Prompt || !strings.Contains(qs[0].Screen, "Yes, I trust this folder ✔")) {
				t.Fatalf("questions opened %+v, want the trust dialog's\n%s", qs, s.timeline())
			}
		})
	}
}

// fired counts the sends of rule.
func (s *sim) fired(rule string) int {
	n := 0
	for _, e := range s.events {
		if e.Name == engine.EventSend && e.Rule == rule {
			n++
		}
	}
	return n
}

// containsAll reports whether s holds each of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Claude Code 2.1.197 as recorded, from its first run to its exit, driven as
// a person would: the preset, an answer after the refusal, and /exit once the
// model has said its last word. At its exit it leaves its transcript on
// screen, the user's messages marked ❯ and its own ●, which is no menu: no
// question opens while it takes its time to end.
func TestExitScreenIsNoQuestion(t *testing.T) {
	t.Parallel()
	preset, err := os.ReadFile("../../playbooks/presets/claude-code.yaml")
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(preset), "\nrules:\n", `
rules:
  - {name: reply-after-refusal, match: "What should Claude do instead?", line: "Never mind, wrap up.", limit: 1}
  - {name: exit-when-done, match: "SCRIPT-DONE", line: "/exit", limit: 1}
`, 1)
	s := newSim(t, yaml, engine.Config{Rows: 24, Cols: 80})
	var at time.Duration
	for _, w := range readCastOutput(t, "../../testdata/screens/claude-code-2.1.197-permissions/sudo.cast") {
		s.out(w.at-at, w.data)
		at = w.at
	}
	s.advance(5 * time.Second)
	if s.fired("exit-when-done") != 1 || s.fired("sudo") != 1 {
		t.Fatalf("the run did not refuse sudo and type /exit\n%s", s.timeline())
	}
	if qs := s.questions(engine.EventQuestion); len(qs) != 0 {
		t.Fatalf("questions opened %+v\n%s", qs, s.timeline())
	}
	s.exit(time.Millisecond, 0)
	s.wantResult(engine.Done, 0)
}
