package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// These tests drive testdata/fakes/tui, which draws like Claude Code or a
// scaffolder (raw mode, words placed by cursor jumps, partial redraws), through
// the real runner with screen matching. The fake is strict: a key it does not
// expect ends it with exit code 2, so any wrong keystroke fails the run.

// tuiRun runs a screen-matching playbook whose body (steps, rules) drives the
// fake, given args as the rest of the command's YAML flow sequence, and returns
// the report and the program's raw output.
func tuiRun(t *testing.T, args, body string) (*report.Report, string) {
	t.Helper()
	tui := testprog.Build(t, "tui")
	if args != "" {
		args = ", " + args
	}
	pb := playbook(t, `
version: 1
name: tui
spawn:
  command: [%q%s]
  size: {rows: 24, cols: 80}
settings: {match: screen, settle: 50ms, min_send_interval: 0s}
timeouts: {total: 20s, prompt: 2s}
`+body, tui, args)
	var out syncBuffer
	rep := run(t, pb, runner.WithMirror(&out))
	return rep, out.String()
}

// sent returns what clai sent, as the timeline shows it, in order.
func sent(rep *report.Report) []string {
	var s []string
	for _, e := range rep.Timeline {
		if e.Event == "send" {
			s = append(s, e.Sent)
		}
	}
	return s
}

// wantOutput fails t unless the program's raw output holds each of want.
func wantOutput(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("the program's output lacks %q:\n%q", w, out)
		}
	}
}

func TestTUIChooseMovesTheMarkerThenConfirms(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-busy, "2"`, `
steps:
  - {expect: "Do you want to proceed?", choose: "No, and tell"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "chose: No, and tell Claude what to do differently")
	if s := sent(rep); len(s) != 2 || !strings.HasPrefix(s[0], "keys down×2") || !strings.HasPrefix(s[1], `choose "No, and tell`) {
		t.Fatalf("sent %q, want two downs then Enter", s)
	}
}

// The program drops the first arrow key: the marker stops one short, and clai,
// which checks the redrawn screen before it confirms, moves it the rest of the
// way. Confirming blindly would choose the wrong option.
func TestTUIChooseChecksTheMarkerOnTheRedrawnScreen(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-swallow, "1"`, `
steps:
  - {expect: "Do you want to proceed?", choose: "No, and tell"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "chose: No, and tell Claude what to do differently")
	if s := sent(rep); len(s) != 3 || !strings.HasPrefix(s[0], "keys down×2") || !strings.HasPrefix(s[1], "keys down×1") {
		t.Fatalf("sent %q, want two downs, one more down, then Enter", s)
	}
}

func TestTUIChooseALabelNotOnTheMenuHandsOver(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-busy, "1"`, `
steps:
  - {expect: "Do you want to proceed?", choose: "Always allow"}
`)
	wantOutcome(t, rep, engine.Manual, exitcode.Manual)
	if s := sent(rep); len(s) != 0 {
		t.Fatalf("sent %q, want nothing", s)
	}
	if strings.Contains(out, "chose:") || strings.Contains(out, "unexpected input") {
		t.Fatalf("the program got an answer:\n%q", out)
	}
	found := false
	for _, e := range rep.Timeline {
		found = found || strings.Contains(e.Reason, "no such option on screen (options: Yes | Yes, and don't ask again | No, and tell Claude what to do differently)")
	}
	if !found {
		t.Fatalf("no event names the options on screen; reason %q", rep.Reason)
	}
}

// In application cursor mode the fake accepts only ESC O B for down.
func TestTUIChooseInApplicationCursorMode(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-app-cursor, -menu, list, -options, "Vanilla|Vue|React|Svelte"`, `
steps:
  - {expect: "Do you want to proceed?", choose: "React"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "\x1b[?1h", "chose: React")
}

// Named arrow keys follow application cursor mode too.
func TestTUIKeysInApplicationCursorMode(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-app-cursor, -menu, list, -options, "Vanilla|Vue|React|Svelte"`, `
steps:
  - {expect: "Do you want to proceed?", keys: [down, down, enter]}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "chose: React")
}

// The marker starts on the third option of a list without numbers: the options
// above it are on the menu too, and clai moves the marker up to one of them.
func TestTUIChooseAboveTheMarker(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-menu, list, -select, "3", -options, "Vanilla|Vue|React|Svelte"`, `
steps:
  - {expect: "Do you want to proceed?", choose: "Vanilla"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "chose: Vanilla")
	if s := sent(rep); len(s) != 2 || !strings.HasPrefix(s[0], "keys up×2") {
		t.Fatalf("sent %q, want two ups then Enter", s)
	}
}

func TestTUIChooseTypesTheNumber(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-menu, numbers, -question, "Select a framework:", -options, "Vanilla|Vue|React|Svelte"`, `
steps:
  - {expect: "Select a framework:", choose: "React"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "chose: React")
	if s := sent(rep); len(s) != 1 || !strings.Contains(s[0], "types 3") {
		t.Fatalf("sent %q, want the number 3", s)
	}
}

// The fake blocks until the terminal answers where the cursor is and what it
// is: without clai's answers the run would time out.
func TestTUIAnswersTerminalQueries(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-query`, `
steps:
  - {expect: "Do you want to proceed?", choose: "Yes"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "terminal: cursor at 5;10, attributes ?1;2c", "chose: Yes")
}

// The dialog appears twice, and stays up a while after each answer as the busy
// line redraws: the rule answers each appearance once, never a redraw.
func TestTUIRuleFiresOncePerAppearance(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, `-ask, "2", -busy, "4", -linger, "4"`, `
rules:
  - {name: proceed, match: "Do you want to proceed?", choose: "Yes, and don't", limit: 5}
`)
	wantOutcome(t, rep, engine.Done, 0)
	if rep.Rules["proceed"] != 2 {
		t.Fatalf("rule proceed fired %d times, want 2", rep.Rules["proceed"])
	}
	if strings.Count(out, "chose: Yes, and don't ask again") != 2 {
		t.Fatalf("want two answers:\n%q", out)
	}
}

// Words drawn with cursor jumps instead of spaces match as text with spaces,
// though the byte stream never holds the phrase.
func TestTUICursorDrawnTextMatchesWithSpaces(t *testing.T) {
	t.Parallel()
	rep, out := tuiRun(t, ``, `
steps:
  - expect: "Welcome to Claude"
  - {expect: "Do you want to proceed?", choose: "Yes"}
  - expect: eof
`)
	wantOutcome(t, rep, engine.Done, 0)
	wantOutput(t, out, "Welcome\x1b[9Gto\x1b[12GClaude")
	if strings.Contains(out, "Welcome to") || strings.Contains(out, "want to proceed") {
		t.Fatalf("the stream holds spaces between words:\n%q", out)
	}
}
