package playbooks_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
)

const overClaudeCode = "version: 1\nname: mine\nextends: claude-code\nspawn: {command: [claude]}\n"

// merged is what a check of the merge compares: the values, and for each whether
// the playbook (true) or the preset gave it.
type merged struct {
	match                     playbooks.MatchMode
	settle                    time.Duration
	total, step, idle, prompt time.Duration
	sequence                  string
	gap                       time.Duration
	max                       int
	retry                     bool
	ownSettle, ownIdle        bool
	ownGap, ownMax            bool
}

func mergedOf(pb *playbooks.Playbook) merged {
	own := func(p diag.Pos) bool { return p.File == pb.Path }
	return merged{
		match: pb.Settings.Match, settle: pb.Settings.Settle,
		total: pb.Timeouts.Total, step: pb.Timeouts.Step, idle: pb.Timeouts.Idle, prompt: pb.Timeouts.Prompt,
		sequence: strings.Join(pb.Nudge.Sequence, "|"), gap: pb.Nudge.Gap, max: pb.Nudge.Max,
		retry:     pb.Settings.Retry,
		ownSettle: own(pb.Settings.SettlePos), ownIdle: own(pb.Timeouts.IdlePos),
		ownGap: own(pb.Nudge.GapPos), ownMax: own(pb.Nudge.MaxPos),
	}
}

// TestExtendsMergesKeyByKey: each key of settings, timeouts and nudge the playbook
// gives wins; every other stays the preset's (claude-code: screen, settle 400ms,
// idle 10m, prompt 30m, nudge "continue" every 2m, at most 2).
func TestExtendsMergesKeyByKey(t *testing.T) {
	t.Parallel()
	preset := merged{
		match: playbooks.MatchScreen, settle: 400 * time.Millisecond,
		step: playbooks.DefaultStepTimeout, idle: 10 * time.Minute, prompt: 30 * time.Minute,
		sequence: "continue\r", gap: 2 * time.Minute, max: 2, retry: true,
	}
	with := func(change func(*merged)) merged {
		m := preset
		change(&m)
		return m
	}
	for _, tc := range []struct {
		name, yaml string
		want       merged
	}{
		{"nothing given", "", preset},
		{"timeouts.total only", "timeouts: {total: 3m}\n", with(func(m *merged) { m.total = 3 * time.Minute })},
		{"timeouts.idle only", "timeouts: {idle: 60s}\n", with(func(m *merged) { m.idle, m.ownIdle = time.Minute, true })},
		{"all four timeouts", "timeouts: {total: 3m, step: 90s, idle: 60s, prompt: 60s}\n", with(func(m *merged) {
			m.total, m.step, m.idle, m.prompt, m.ownIdle = 3*time.Minute, 90*time.Second, time.Minute, time.Minute, true
		})},
		{"settings.settle only", "settings: {settle: 1s}\n", with(func(m *merged) { m.settle, m.ownSettle = time.Second, true })},
		{"settings.retry only", "settings: {retry: false}\n", with(func(m *merged) { m.retry = false })},
		{"nudge.max only", "nudge: {max: 1}\n", with(func(m *merged) { m.max, m.ownMax = 1, true })},
		{"nudge.sequence only", "nudge: {sequence: [\"\\r\"]}\n", with(func(m *merged) { m.sequence = "\r" })},
		{"nudge.gap only", "nudge: {gap: 30s}\n", with(func(m *merged) { m.gap, m.ownGap = 30*time.Second, true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pb := mustParse(t, overClaudeCode+tc.yaml)
			if got := mergedOf(pb); got != tc.want {
				t.Errorf("merged\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestExtendsStepsTakeTheMergedStepTimeout: a step without its own timeout waits
// the merged timeouts.step.
func TestExtendsStepsTakeTheMergedStepTimeout(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, overClaudeCode+"timeouts: {step: 90s}\nsteps:\n  - expect: \"Welcome\"\n    line: hi\n")
	if got := pb.Steps[0].Timeout; got != 90*time.Second {
		t.Fatalf("step timeout %s, want 1m30s", got)
	}
}

// TestFindingsOfACombinationArePlacedInThePlaybook: the playbook of a user who
// extends claude-code with timeouts of their own loads, and what lint says about
// it is placed in that playbook and names the preset's value it met.
func TestFindingsOfACombinationArePlacedInThePlaybook(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		line       int
		message    string
	}{
		{
			"the nudge outlasts the total", "timeouts: {total: 3m, step: 90s, idle: 60s, prompt: 60s}\n", 5,
			"timeouts.idle 1m0s set here, then the preset claude-code's nudge (gap 2m0s, max 2), hand over to a person 5m0s after the program falls quiet, later than timeouts.total 3m0s set here",
		},
		{
			"the preset's idle outlasts the total", "timeouts: {total: 3m, step: 90s, prompt: 60s}\n", 5,
			"the preset claude-code's timeouts.idle 10m0s is longer than timeouts.total 3m0s set here, so idle never fires",
		},
		{
			"the preset's settle is not shorter than idle", "timeouts:\n  idle: 400ms\n", 6,
			"timeouts.idle 400ms set here is not longer than the preset claude-code's settings.settle 400ms",
		},
		{
			"the playbook's match: stream leaves the preset's choose without a screen", "settings: {match: stream}\n", 5,
			"settings.match: stream set here leaves the preset claude-code's choose (its lines 29, 37, 48, 54, 66) without the screen it needs to see the menu",
		},
		{
			"a preset rule answers the playbook's danger example", "danger:\n  - name: list-all\n    match: \"ls -la\"\n    examples: [\"● Bash(ls -la)\\n  ⎿  Waiting…\\n\\n Bash command\\n\\n   ls -la\\n\\n Do you want to proceed?\"]\n", 3,
			"in the preset claude-code (its line 46): rule \"approve-read-only\" would answer danger rule \"list-all\"",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, findings := playbooks.Parse("mine.yaml", []byte(overClaudeCode+tc.yaml))
			var hit bool
			for _, f := range findings {
				if f.Pos.File != "mine.yaml" {
					t.Errorf("finding placed outside the playbook: %v", f)
				}
				if strings.Contains(f.Message, tc.message) {
					hit = true
					if f.Pos.Line != tc.line {
						t.Errorf("finding at line %d, want %d: %v", f.Pos.Line, tc.line, f)
					}
				}
			}
			if !hit {
				t.Errorf("no finding says %q; got:\n%v", tc.message, findings)
			}
		})
	}
}

// TestTimeoutsThatNeverFireAreWarnings: a limit the total always beats leaves a
// playbook that runs; idle not longer than settle does not.
func TestTimeoutsThatNeverFireAreWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		timeouts string
		sev      diag.Severity
		rule     string
	}{
		{"{total: 1m, step: 2m}", diag.Warning, "never-fires"},
		{"{total: 1m, idle: 2m}", diag.Warning, "never-fires"},
		{"{total: 1m, prompt: 2m}", diag.Warning, "never-fires"},
		{"{total: 1m, idle: 10s}\nnudge: {gap: 30s, max: 3}", diag.Warning, "never-fires"},
		{"{total: 1m}\nnudge: {gap: 1s}", diag.Warning, "never-fires"},
		{"{idle: 200ms}", diag.Error, "timeouts"},
	} {
		src := fmt.Sprintf("version: 1\nname: t\nspawn: {command: [x]}\ntimeouts: %s\n", tc.timeouts)
		pb, findings := playbooks.Parse("t.yaml", []byte(src))
		if len(findings) != 1 || findings[0].Severity != tc.sev || findings[0].Rule != tc.rule {
			t.Errorf("%s: want one %s %s, got %v", tc.timeouts, tc.sev, tc.rule, findings)
		}
		if (pb != nil) != (tc.sev == diag.Warning) {
			t.Errorf("%s: playbook loaded: %v", tc.timeouts, pb != nil)
		}
	}
}
