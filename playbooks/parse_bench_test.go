package playbooks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// decoyPlaybook is the playbook of the bench's W3: n decoy regex rules beside
// the one that answers.
func decoyPlaybook(n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\nname: w3\nspawn: {command: [flood, -bytes, 16MiB]}\nsettings: {min_send_interval: 0s}\nrules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: decoy-%d, match: {regex: 'Decoy question %d (?P<what>\\w+)\\? \\[(yes|no)\\]'}, line: \"no\", limit: 1}\n", i, i)
	}
	b.WriteString("  - {name: continue, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\", limit: 1}\n")
	return []byte(b.String())
}

// BenchmarkParseDecoys is what a run of W3 pays for its 200 decoy rules
// before the program starts: the playbook parsed, its patterns compiled.
func BenchmarkParseDecoys(b *testing.B) {
	for _, n := range []int{0, 200} {
		src := decoyPlaybook(n)
		b.Run(fmt.Sprintf("rules=%d", n+1), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if pb, findings := playbooks.Parse("w3.yaml", src); pb == nil {
					b.Fatal(findings)
				}
			}
		})
	}
}

// Places whose patterns have the same groups share one expression
// environment, built once: a playbook of many rules does not build one a
// rule. Places with other groups, or none, have their own.
func TestEnvSharedByLikePlaces(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("w3.yaml", decoyPlaybook(3))
	if pb == nil {
		t.Fatal(findings)
	}
	r := pb.Rules
	if len(r) != 4 {
		t.Fatalf("%d rules", len(r))
	}
	if r[0].Env != r[1].Env || r[1].Env != r[2].Env {
		t.Fatal("the decoy rules, whose patterns have the same groups, have environments of their own")
	}
	if r[3].Env == r[0].Env {
		t.Fatal("the rule without groups shares the decoys' environment")
	}
	// Each still type-checks its own groups.
	src := strings.Replace(string(decoyPlaybook(3)), `line: "y"`, `line: "{{ match.what }}"`, 1)
	if _, findings := playbooks.Parse("w3.yaml", []byte(src)); !strings.Contains(findings.Error(), "what") {
		t.Fatalf("match.what where the pattern has no such group: %v", findings)
	}
}
