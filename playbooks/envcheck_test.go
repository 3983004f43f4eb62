package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// Lint knows a group is past the last when no pattern of the place has it;
// when one has it, the read may hold at run time and is left to it.
func TestGroupPastTheLastOfEveryPattern(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		step string
		want string // "" for no finding
	}{
		{`{expect: {regex: 'a(\d)(\d)'}, line: "{{ match.groups[2] }}"}`, ""},
		{`{expect: {regex: 'a(\d)(\d)'}, line: "{{ match.groups[-3] }}"}`, ""},
		{`{expect: {regex: 'a(\d)(\d)'}, line: "{{ match.groups[3] }}"}`, "match.groups[3] is past the last group: the longest match here has match.groups[0] to match.groups[2]"},
		{`{expect: {regex: 'a(\d)(\d)'}, line: "{{ match.groups[-4] }}"}`, "match.groups[-4] is past the last group"},
		{`{expect: [{regex: 'a(\d)'}, "b"], line: "{{ match.groups[1] }}"}`, ""},
		{`{expect: ["a", "b"], line: "{{ match.groups[1] }}"}`, "match.groups[1] is past the last group: the longest match here has match.groups[0] to match.groups[0]"},
		{`{line: "{{ match.groups[0] }}"}`, "match.groups[0] is past the last group: nothing is matched here"},
		{`{expect: {regex: 'a(\d)'}, line: "{{ match.groups[i] }}"}`, "unknown name"},
	} {
		src := "version: 1\nname: g\nspawn: {command: [x]}\nsteps:\n  - " + c.step + "\n"
		_, findings := playbooks.Parse("test.yaml", []byte(src))
		switch {
		case c.want == "" && len(findings) > 0:
			t.Errorf("%s: %v", c.step, findings)
		case c.want != "" && (len(findings) != 1 || !strings.Contains(findings[0].Message, c.want) || findings[0].Rule != "template" || findings[0].Line != 5):
			t.Errorf("%s: %v, want one template finding at line 5 with %q", c.step, findings, c.want)
		}
	}
}
