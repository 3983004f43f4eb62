package score

import "testing"

// The work tree fills a slot only when it says surely what it is; else
// the last args fill it, quoted for the shell, or it stays to fill.
func TestFillFromTheWorkTreeOnlyWhenSure(t *testing.T) {
	t.Parallel()
	one := &WorkTree{Branch: "feature/x", Unstaged: []string{"a b.go"}, Changed: []string{"a b.go"}}
	two := &WorkTree{Branch: "main", Unstaged: []string{"a.go", "b.go"}, Changed: []string{"a.go", "b.go"}}
	staged := &WorkTree{Changed: []string{"s.go"}}
	for _, tc := range []struct {
		template string
		args     []string
		tree     *WorkTree
		shell    string
		want     string
	}{
		{"git add <path>", []string{"old.go"}, one, "bash", "git add 'a b.go'"},
		{"git add <path>", []string{"old.go"}, one, "fish", "git add 'a b.go'"},
		{"git add <msg>", []string{`"old file.go"`}, one, "bash", "git add 'a b.go'"}, // a quoted name with a blank
		{"git push -u origin <msg>", nil, one, "bash", "git push -u origin <msg>"},
		{"git add <path>", []string{"old.go"}, two, "bash", "git add old.go"}, // two changed: the last args
		{"git add <path>", nil, two, "bash", "git add <path>"},
		{"git add <path>", nil, staged, "bash", "git add <path>"}, // nothing unstaged
		{"vim <path>", nil, staged, "bash", "vim s.go"},
		{"git diff <path>", nil, one, "bash", "git diff 'a b.go'"},
		{"git checkout -- <path>", nil, one, "zsh", "git checkout -- 'a b.go'"},
		{"git push -u origin <path>", []string{"feature/old"}, one, "bash", "git push -u origin feature/x"},
		{"git push -u origin <path>", []string{"feature/old"}, &WorkTree{}, "bash", "git push -u origin feature/old"}, // detached
		{"cp <path> <path>", nil, one, "bash", "cp <path> <path>"},
		{"vim <path>", []string{`"it's.go"`}, nil, "bash", `vim "it's.go"`}, // as typed
		{"vim <path>", nil, &WorkTree{Changed: []string{`it's\.go`}}, "fish", `vim 'it\'s\\.go'`},
		{"cd <path>", []string{"~/src"}, nil, "bash", "cd ~/src"},
		{"git commit -m <msg>", []string{"fix it"}, one, "bash", "git commit -m <msg>"},
	} {
		c := Candidate{Template: tc.template, Args: tc.args}
		if got, _ := fill(&c, Options{Tree: tc.tree, Shell: tc.shell, MinArgsUses: 1}); got != tc.want {
			t.Errorf("%s with %q in %+v (%s): %q, want %q", tc.template, tc.args, tc.tree, tc.shell, got, tc.want)
		}
	}
}

// A template filled with its last args is offered with the other args it
// ran with lately too, each at half the score of the one before, and
// never twice the same command; one the work tree filled is not.
func TestAlternativesOfRecentArgs(t *testing.T) {
	t.Parallel()
	c := Candidate{Template: "vim <path>", RepoTransitions: 4, Args: []string{"a.go"},
		Alternatives: [][]string{{"a.go"}, {"b.go"}, {"c.go"}, {"d.go"}}}
	got := Rank([]Candidate{c, {Template: "go test ./...", RepoTransitions: 1}}, Options{})
	var commands []string
	for _, s := range got {
		commands = append(commands, s.Command)
	}
	want := []string{"vim a.go", "vim b.go", "go test ./...", "vim c.go"}
	if len(commands) != len(want) {
		t.Fatalf("commands %q, want %q", commands, want)
	}
	for i := range want {
		if commands[i] != want[i] {
			t.Fatalf("commands %q, want %q", commands, want)
		}
	}
	if !near(got[1].Score, got[0].Score/2) || !near(got[3].Score, got[0].Score/4) || got[1].Confidence >= got[0].Confidence {
		t.Errorf("scores %v %v %v", got[0].Score, got[1].Score, got[3].Score)
	}
	tree := Rank([]Candidate{c}, Options{Tree: &WorkTree{Changed: []string{"x.go"}}})
	if len(tree) != 1 || tree[0].Command != "vim x.go" {
		t.Errorf("filled by the work tree: %+v", tree)
	}
}
