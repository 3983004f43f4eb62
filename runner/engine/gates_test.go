package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
)

// decoys is a playbook of n rules whose literals begin alike, a rule with a
// literal of its own, and one a list of patterns that share their head with
// the decoys and with nothing.
func decoys(t *testing.T, n int) *playbooks.Playbook {
	t.Helper()
	var b strings.Builder
	b.WriteString("version: 1\nname: gates\nspawn: {command: [prog]}\nsettings: {min_send_interval: 0s}\nrules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: decoy-%d, match: {regex: 'Decoy question %d (?P<what>\\w+)\\? \\[(yes|no)\\]'}, line: \"no %d\"}\n", i, i, i)
	}
	b.WriteString("  - {name: continue, match: {regex: 'Continue\\? \\[y/n\\] $'}, line: \"y\"}\n")
	b.WriteString("  - {name: either, match: [{regex: 'Decoy queen (\\d+)'}, 'Either way'], line: \"e\"}\n")
	pb, findings := playbooks.Parse("gates.yaml", []byte(b.String()))
	if pb == nil {
		t.Fatal(findings)
	}
	return pb
}

// Rules whose literals begin alike share one head, looked for once an
// evaluation; a rule whose literal nothing shares, or one with a pattern
// that has no head shared, is always searched.
func TestRuleGatesShareHeads(t *testing.T) {
	t.Parallel()
	pb := decoys(t, 200)
	g := newRuleGates(pb.Rules)
	if g == nil || len(g.heads) != 1 || string(g.heads[0]) != "Decoy qu" {
		t.Fatalf("gates %+v, want the one head the decoys share", g)
	}
	for i, r := range pb.Rules[:200] {
		if len(g.of[i]) != 1 {
			t.Fatalf("rule %s has heads %v", r.Name, g.of[i])
		}
	}
	if g.of[200] != nil || g.of[201] != nil {
		t.Fatalf("continue has heads %v, either %v: they must be searched always", g.of[200], g.of[201])
	}
	g.begin()
	text := []byte(strings.Repeat("12:00:01 DEBUG [3/16] compiling internal/pkg7/file_7.go (7ms)\n", 100))
	for i := range pb.Rules {
		if want := i < 200; g.shut(i, text) != want {
			t.Fatalf("rule %s shut %v on a text without the decoys' head", pb.Rules[i].Name, !want)
		}
	}
	if newRuleGates(append(pb.Rules[:1:1], pb.Rules[200])) != nil {
		t.Fatal("gates where no head is shared")
	}
}

// With the gates, the rule that fires is the one that fires without them:
// the first in file order whose pattern matches.
func TestRuleGatesFireAsWithout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ out, want string }{
		{"12:00 DEBUG compiling\nContinue? [y/n] ", "y\r"},
		{"Decoy question 7 ready? [yes]\nContinue? [y/n] ", "no 7\r"},
		{"Decoy question 1 and Decoy question 150 ready? [no]", "no 150\r"},
		{"Decoy queen 3", "e\r"},
		{"Either way", "e\r"},
	} {
		pb := decoys(t, 200)
		e := NewEngine(pb, Config{})
		if e.gates == nil {
			t.Fatal("the engine of a stream has no gates")
		}
		now := time.Unix(1_700_000_000, 0)
		e.Start(now)
		var sent []string
		for _, a := range e.Output(now.Add(time.Second), []byte(tc.out)) {
			if s, ok := a.(*Send); ok {
				sent = append(sent, string(s.Data))
			}
		}
		if len(sent) != 1 || sent[0] != tc.want {
			t.Fatalf("%q: sent %q, want %q", tc.out, sent, tc.want)
		}
	}
}

// A chunk of a flood costs the engine no allocation, with 200 rules as with
// one: the per-chunk path reuses its memory.
func TestOutputAllocatesNothing(t *testing.T) {
	line := "\x1b[32m12:00:01.123\x1b[0m \x1b[1mDEBUG\x1b[0m compiling package github.com/example/module/internal/thing ... ok\r\n"
	// Under bigRead, so that each chunk is matched.
	chunk := []byte(strings.Repeat(line, 1<<10/len(line)))
	for _, n := range []int{0, 200} {
		e := NewEngine(decoys(t, n), Config{})
		now := time.Now()
		e.Start(now)
		// The first chunks grow the window and the stripper's memory.
		for range 8 {
			now = now.Add(time.Millisecond)
			e.Output(now, chunk)
		}
		allocs := testing.AllocsPerRun(200, func() {
			now = now.Add(time.Millisecond)
			e.Output(now, chunk)
		})
		if allocs != 0 {
			t.Fatalf("%d decoys: %.1f allocations a chunk, want 0", n, allocs)
		}
	}
}
