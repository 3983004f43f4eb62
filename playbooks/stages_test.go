package playbooks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// rulesOf lists the rule of each finding, in order.
func rulesOf(t *testing.T, src string) []string {
	t.Helper()
	_, findings := playbooks.Parse("pb.yaml", []byte(src))
	var rules []string
	for _, f := range findings {
		rules = append(rules, f.Rule)
	}
	return rules
}

// One lint pass reports the findings of every stage: an error of the schema
// in one place hides neither a regex that does not compile in another, nor
// how the timeouts combine, nor what clai run would refuse.
func TestOneLintPassReportsEveryStage(t *testing.T) {
	t.Parallel()
	got := rulesOf(t, `version: 1
name: stages
spawn: {command: [sh], comand: [sh]}
timeouts: {total: 10s, idle: 1m}
steps:
  - {expect: {regex: "a(b"}, line: x}
  - {expect: 5, line: y}
  - {expect: Fruit, choose: Apple}
rules:
  - {name: r, match: "x", line: y}
tests:
  - {name: t, output: "x", expect: {fired: [s]}}
`)
	want := []string{"schema", "never-fires", "regex", "schema", "needs-screen", "unbounded", "reference"}
	if !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v", got, want)
	}
}

// A check that an error makes meaningless is left out: it would compare a
// default with what the author meant, or look for a name that was lost.
func TestErrorsDoNotMakeFindingsUp(t *testing.T) {
	t.Parallel()
	const head = "version: 1\nname: x\nspawn: {command: [sh]}\n"
	const choose = "steps:\n  - {expect: Fruit, choose: Apple}\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"a misspelt match mode", head + "settings: {match: scren}\n" + choose, []string{"schema"}},
		{"a misspelt match key", head + "settings: {mach: screen}\n" + choose, []string{"schema"}},
		{"a misspelt settings section", head + "setings: {match: screen}\n" + choose, []string{"schema"}},
		{"a preset that does not exist", "version: 1\nname: x\nextends: claude-cod\nspawn: {command: [sh]}\n" + choose, []string{"schema"}},
		{"an idle that does not parse", head + "timeouts: {total: 10s, idle: soon}\nnudge: {gap: 1s}\n", []string{"duration"}},
		{"a cooldown that does not parse", head + "rules:\n  - {name: r, match: x, line: y, cooldown: later}\n", []string{"duration"}},
		{"a when that does not compile", head + "rules:\n  - {name: r, match: rm, when: 'nope(', line: y, limit: 1}\ndanger:\n  - {name: d, match: rm, examples: [rm -rf /]}\n", []string{"expr"}},
		{"a rule whose name is lost", head + "rules:\n  - {name: [r], match: x, line: y, limit: 1}\ntests:\n  - {name: t, output: x, expect: {fired: [r]}}\n", []string{"schema"}},
		{"a steps section that is no list", head + "steps: {expect: x}\ntests:\n  - {name: t, output: x, expect: {fired: [s]}}\n", []string{"schema"}},
	} {
		if got := rulesOf(t, tc.src); !slices.Equal(got, tc.want) {
			t.Errorf("%s: findings %v, want %v\n%s", tc.name, got, tc.want, strings.TrimSpace(tc.src))
		}
	}
}
