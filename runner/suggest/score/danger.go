package score

import (
	"fmt"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// dangerRule is one danger rule's name and patterns.
type dangerRule struct {
	name     string
	patterns []*pattern.Pattern
}

// PresetDanger returns a Danger function made of the danger rules of clai's
// built-in presets (rm -rf outside the project, sudo, curl piped to a shell,
// a forced push, chmod 777, DROP DATABASE, and the others the presets hold):
// the rules a run never lets a program's prompt approve, here marking the
// commands a suggestion should rank lower. A rule several presets share is
// tried once, by name.
func PresetDanger() (func(command string) string, error) {
	var rules []dangerRule
	seen := map[string]bool{}
	for _, name := range playbooks.Presets() {
		pb, err := playbooks.LoadPreset(name)
		if err != nil {
			return nil, fmt.Errorf("score: the danger rules of preset %s: %w", name, err)
		}
		for _, d := range pb.Danger {
			if seen[d.Name] || d.Match == nil {
				continue
			}
			seen[d.Name] = true
			rule := dangerRule{name: d.Name}
			for _, p := range d.Match.Patterns {
				if p.Kind != pattern.EOF {
					rule.patterns = append(rule.patterns, p)
				}
			}
			rules = append(rules, rule)
		}
	}
	return func(command string) string {
		text := []byte(command)
		for _, rule := range rules {
			for _, p := range rule.patterns {
				if p.FindInto(text, nil) != nil {
					return rule.name
				}
			}
		}
		return ""
	}, nil
}
