package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindMenu reads menus from screens as real programs drew them (the captures in
// testdata/screens) and from small hand-made ones.
func TestFindMenu(t *testing.T) {
	t.Parallel()
	capture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "screens", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	tests := []struct {
		name       string
		screen     string
		labels     []string
		marked     int // index of the marked option, -1 for none
		horizontal bool
	}{
		{
			name:   "clack select behind a gutter",
			screen: capture("create-vite-scaffold/04-select-framework.txt"),
			labels: []string{"Vanilla", "Vue", "React", "Preact", "Lit", "Svelte", "Solid", "Ember", "Qwik", "Angular", "Marko", "Others"},
			marked: 0,
		},
		{
			name:   "clack select, marker moved",
			screen: capture("create-vite-scaffold/06-framework-down2.txt"),
			labels: []string{"Vanilla", "Vue", "React", "Preact", "Lit", "Svelte", "Solid", "Ember", "Qwik", "Angular", "Marko", "Others"},
			marked: 2,
		},
		{
			name:   "clack select below answered questions",
			screen: capture("create-vite-scaffold/08-select-linter.txt"),
			labels: []string{"Oxlint", "ESLint"},
			marked: 0,
		},
		{
			name:       "clack confirm, side by side",
			screen:     capture("create-vite-scaffold/09-install-confirm.txt"),
			labels:     []string{"Yes", "No"},
			marked:     0,
			horizontal: true,
		},
		{
			name:       "clack confirm toggled",
			screen:     capture("create-vite-scaffold/10-install-no.txt"),
			labels:     []string{"Yes", "No"},
			marked:     1,
			horizontal: true,
		},
		{
			name:   "clack text prompt is no menu",
			screen: capture("create-vite-scaffold/01-project-name.txt"),
			marked: -1,
		},
		{
			name:   "numbered with a cursor",
			screen: capture("claude-onboarding-to-prompt/05-trust-dialog.txt"),
			labels: []string{"Yes, I trust this folder", "No, exit"},
			marked: 0,
		},
		{
			name:   "cursor list indented alike",
			screen: "Pick a colour\n❯ red\n  green\n  blue\n",
			labels: []string{"red", "green", "blue"},
			marked: 0,
		},
		{
			name:   "radio list ends at a line without a button",
			screen: "│  ○ one\n│  ● two\n│  ↑/↓ to navigate • Enter: confirm\n└\n",
			labels: []string{"one", "two"},
			marked: 1,
		},
		{
			name:   "a later vertical menu wins over an earlier row",
			screen: "◇  Go on?\n│  ● Yes / ○ No\n│\n◆  Which?\n│  ○ a\n│  ● b\n",
			labels: []string{"a", "b"},
			marked: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := findMenu(tt.screen)
			var labels []string
			marked := -1
			for i, o := range m.options {
				labels = append(labels, o.label)
				if o.marked {
					marked = i
				}
			}
			if strings.Join(labels, "|") != strings.Join(tt.labels, "|") {
				t.Errorf("labels %q, want %q", labels, tt.labels)
			}
			if marked != tt.marked {
				t.Errorf("marked option %d, want %d", marked, tt.marked)
			}
			if m.horizontal != tt.horizontal {
				t.Errorf("horizontal %v, want %v", m.horizontal, tt.horizontal)
			}
		})
	}
}
