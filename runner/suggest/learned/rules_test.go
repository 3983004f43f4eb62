package learned

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

func TestProposeWritesRulesThatLoad(t *testing.T) {
	t.Parallel()
	head := `version: 1
name: p
spawn: {command: [cat]}
danger:
  - name: no-prod
    match: "to prod"
`
	pb, findings := playbooks.Parse("p.yaml", []byte(head))
	if pb == nil {
		t.Fatal(findings)
	}
	repeated := []Repeated{
		{Template: "Overwrite <path>? [y/N]", Example: "Overwrite ./a'b.txt? [y/N]", Given: Given{Kind: KindChoice, Text: "y", Count: 3, Share: 1}},
		{Template: "Overwrite <path> again? [y/N]", Example: "Overwrite /x again? [y/N]", Given: Given{Kind: KindChoice, Text: "N", Count: 4, Share: 0.8}},
		{Template: `Say "<num>":`, Example: `Say "12":`, Given: Given{Kind: KindText, Text: `a "quoted" \ answer`, Count: 2, Share: 1}},
		{Template: "Deploy to prod? [y/n]", Example: "Deploy to prod? [y/n]", Given: Given{Kind: KindChoice, Text: "y", Count: 5, Share: 1}},
		{Template: "Trust this folder?", Example: "Trust this folder?", Given: Given{Kind: KindOption, Text: "Yes", Count: 5, Share: 1}},
		{Template: "Name:", Example: "Name:", Given: Given{Kind: KindText, Text: "a", Count: 3, Share: 0.5}},
		{Template: "Tpl:", Example: "Tpl:", Given: Given{Kind: KindText, Text: "{{ x }}", Count: 3, Share: 1}},
		{Template: "Tag:", Example: "Tag:", Given: Given{Kind: KindText, Text: "v1\u202e", Count: 3, Share: 1}},
	}
	var b strings.Builder
	WriteYAML(&b, "p", Propose(pb, repeated, 0.8))
	out := b.String()
	for _, want := range []string{
		`# Not proposed for "Deploy to prod? [y/n]": danger rule "no-prod" matches the question: it stays with people.`,
		`# Not proposed for "Trust this folder?": "Yes" is a menu's entry: a choose: rule needs settings.match: screen.`,
		`# Not proposed for "Name:": people disagree: "a" is 50% of the answers.`,
		`# Not proposed for "Tpl:": the answer "{{ x }}" would read as a template.`,
		`# Not proposed for "Tag:": the answer "v1\u202e" cannot be typed as a text answer: a text answer is one line of visible characters: it holds U+202E`,
		`match: {regex: 'Overwrite\s+\S+\?\s+\[y/N\]'}`,
		`examples: ["Overwrite ./a'b.txt? [y/N]"]`,
		`- name: learned-overwrite-again-yn`,
		`line: "a \"quoted\" \\ answer"`,
		`expect: {sent: "N\r", fired: [learned-overwrite-again-yn]}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
	merged, findings := playbooks.Parse("p.yaml", []byte(head+out))
	if merged == nil || len(findings) > 0 {
		t.Fatalf("the proposal does not load: %v\n%s", findings, out)
	}
	if len(merged.Rules) != 3 || len(merged.Tests) != 3 {
		t.Fatalf("%d rules and %d tests proposed, want 3 each:\n%s", len(merged.Rules), len(merged.Tests), out)
	}
}

// TestProposeChoose: in a playbook that matches the screen, a menu's entry
// people chose is a choose: rule, whose test shows the menu and expects its
// number typed.
func TestProposeChoose(t *testing.T) {
	t.Parallel()
	head := "version: 1\nname: p\nspawn: {command: [cat]}\nsettings: {match: screen}\n"
	pb, _ := playbooks.Parse("p.yaml", []byte(head))
	props := Propose(pb, []Repeated{
		{Template: "Trust <path>?", Example: "Trust /a?", Options: []string{"Yes", "No"}, Given: Given{Kind: KindOption, Text: "No", Count: 2, Share: 1}},
		{Template: "Old?", Example: "Old?", Given: Given{Kind: KindOption, Text: "Yes", Count: 2, Share: 1}},
	}, 0.8)
	var b strings.Builder
	WriteYAML(&b, "p", props)
	out := b.String()
	for _, want := range []string{
		`# Not proposed for "Old?": "Yes" is a menu's entry, and the menu's options were not kept.`,
		`choose: "No"`, `output: "Trust /a?\n  1. Yes\n  2. No\n"`, `expect: {sent: "2\r", fired: [learned-trust]}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
	if merged, findings := playbooks.Parse("p.yaml", []byte(head+out)); merged == nil || len(findings) > 0 {
		t.Fatalf("the proposal does not load: %v\n%s", findings, out)
	}
}

func TestProposeNamesAreUnique(t *testing.T) {
	t.Parallel()
	pb, _ := playbooks.Parse("p.yaml", []byte("version: 1\nname: p\nspawn: {command: [cat]}\nrules:\n  - {name: learned-go-on, match: x, line: y, limit: 1}\n"))
	props := Propose(pb, []Repeated{
		{Template: "Go on?", Example: "Go on?", Given: Given{Kind: KindText, Text: "y", Count: 2, Share: 1}},
		{Template: "Go on!", Example: "Go on!", Given: Given{Kind: KindText, Text: "y", Count: 2, Share: 1}},
		{Template: "<num>", Example: "12", Given: Given{Kind: KindText, Text: "y", Count: 2, Share: 1}},
	}, 0.5)
	var names []string
	for _, p := range props {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "learned-go-on-2 learned-go-on-3 learned-answer" {
		t.Errorf("names = %s", got)
	}
}
