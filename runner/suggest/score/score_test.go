package score

import (
	"math"
	"slices"
	"testing"

	"github.com/clai-sh/clai/runner/suggest/tasks"
)

// near reports whether got is want to within a thousandth.
func near(got, want float64) bool { return math.Abs(got-want) < 1e-3 }

// TestRankHandChecked ranks candidates whose scores were worked out by hand
// with the default weights:
//
//	make test:        80·ln(1+3) + 30·ln(1+1.5) + 20      = 158.392
//	git push --force: 80·ln(1+10) − 50                    = 141.832
//	go test ./...:    60·ln(1+5) + 30·ln(1+2)             = 140.464
//	make lint:        20                                  =  20
func TestRankHandChecked(t *testing.T) {
	t.Parallel()
	candidates := []Candidate{
		{Template: "make test", RepoTransitions: 3},
		{Template: "go test ./...", GlobalTransitions: 5, RepoFrequency: 2},
		{Template: "git push --force", RepoTransitions: 10},
		{Template: "make test", Task: "Makefile", RepoFrequency: 1.5},
		{Template: "make lint", Task: "Makefile"},
	}
	danger := func(command string) string {
		if command == "git push --force" {
			return "force-push"
		}
		return ""
	}
	got := Rank(candidates, Options{Previous: "git pull", Danger: danger})
	want := []struct {
		template   string
		score      float64
		confidence float64
		reasons    []string
	}{
		{"make test", 158.392, 0.59982, []string{"repo transition after `git pull` (3×)", "frequent in this repo (score 1.5)", "project task (Makefile)"}},
		{"git push --force", 141.832, 0.58579, []string{"repo transition after `git pull` (10×)", "dangerous (force-push)"}},
		{"go test ./...", 140.464, 0.58454, []string{"global transition after `git pull` (5×)", "frequent in this repo (score 2.0)"}},
		{"make lint", 20, 0.11867, []string{"project task (Makefile)"}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d suggestions, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Template != w.template || g.Command != w.template || !near(g.Score, w.score) || !near(g.Confidence, w.confidence) || !slices.Equal(g.Reasons, w.reasons) {
			t.Errorf("#%d = %+v\nwant %s score %.3f confidence %.5f reasons %q", i, g, w.template, w.score, w.confidence, w.reasons)
		}
	}
	if got[1].Danger != "force-push" {
		t.Errorf("the forced push's danger is %q", got[1].Danger)
	}
}

// TestRankWeights checks each weight alone, and that other weights change
// the scores: 80·ln(13) for twelve repo transitions, and the score of a
// dangerous task alone is below zero, so its confidence is 0.
func TestRankWeights(t *testing.T) {
	t.Parallel()
	got := Rank([]Candidate{{Template: "git pull", RepoTransitions: 12}}, Options{})
	if !near(got[0].Score, 205.196) || !near(got[0].Confidence, 0.63073) {
		t.Errorf("twelve repo transitions: score %.3f confidence %.5f, want 205.196 and 0.63073", got[0].Score, got[0].Confidence)
	}
	got = Rank([]Candidate{{Template: "git pull", RepoTransitions: 12}}, Options{Weights: Weights{RepoTransition: 1}})
	if !near(got[0].Score, math.Log(13)) {
		t.Errorf("with a weight of 1: %.3f", got[0].Score)
	}
	always := func(string) string { return "rule" }
	got = Rank([]Candidate{{Template: "sudo make install", Task: "Makefile"}}, Options{Danger: always})
	if !near(got[0].Score, -30) || got[0].Confidence != 0 {
		t.Errorf("a dangerous task: score %.3f confidence %v, want -30 and 0", got[0].Score, got[0].Confidence)
	}
	got = Rank([]Candidate{{Template: "ls", RepoFrequency: math.NaN()}, {Template: "pwd", RepoFrequency: -4}, {Template: "cd", RepoFrequency: math.Inf(1)}}, Options{})
	for _, s := range got {
		if s.Score != 0 || s.Confidence != 0 || len(s.Reasons) != 0 {
			t.Errorf("a frequency that is no number or below zero counts: %+v", s)
		}
	}
}

// TestRankOrder checks ties (by template), the limit, and that a candidate
// with no template is skipped.
func TestRankOrder(t *testing.T) {
	t.Parallel()
	got := Rank([]Candidate{{Template: "b", Task: "justfile"}, {Template: "a", Task: "Makefile"}, {Template: "", RepoTransitions: 99}, {Template: "c", RepoTransitions: 1}}, Options{Limit: 2})
	if len(got) != 2 || got[0].Template != "c" || got[1].Template != "a" {
		t.Errorf("order: %+v, want c then a", got)
	}
	if got := Rank(nil, Options{}); len(got) != 0 {
		t.Errorf("no candidates: %+v", got)
	}
}

// TestRankMergesTasks merges one template found as a task of two files.
func TestRankMergesTasks(t *testing.T) {
	t.Parallel()
	got := Rank([]Candidate{{Template: "make test", Task: "Makefile"}, {Template: "make test", Task: "justfile"}, {Template: "make test", Task: "Makefile"}}, Options{})
	if len(got) != 1 || !slices.Equal(got[0].Reasons, []string{"project task (Makefile, justfile)"}) || got[0].Score != 20 {
		t.Errorf("merged: %+v", got)
	}
}

// TestRankFill fills the slots a path, number or URL stands in with the last
// args used in the repository, leaves a message or hash slot visible, and
// fills nothing when the args are unknown, too rarely used, or do not fit.
func TestRankFill(t *testing.T) {
	t.Parallel()
	const template = "go test -run <msg> -count=<num> <path>"
	cases := []struct {
		name string
		c    Candidate
		min  int
		want string
	}{
		{"known args", Candidate{Args: []string{"TestX", "1", "./pkg"}}, 0, "go test -run <msg> -count=1 ./pkg"},
		{"no args", Candidate{}, 0, template},
		{"used once, two wanted", Candidate{Args: []string{"TestX", "1", "./pkg"}, ArgsUses: 1}, 2, template},
		{"used twice, two wanted", Candidate{Args: []string{"TestX", "1", "./pkg"}, ArgsUses: 2}, 2, "go test -run <msg> -count=1 ./pkg"},
		{"too few args", Candidate{Args: []string{"TestX"}}, 0, template},
	}
	for _, c := range cases {
		c.c.Template = template
		c.c.RepoTransitions = 1
		got := Rank([]Candidate{c.c}, Options{MinArgsUses: c.min})
		if got[0].Command != c.want || got[0].Template != template {
			t.Errorf("%s: command %q, want %q", c.name, got[0].Command, c.want)
		}
	}
	// Of two candidates of one template, the args used more often fill it.
	got := Rank([]Candidate{
		{Template: "cd <path>", Args: []string{"src"}, ArgsUses: 1},
		{Template: "cd <path>", Args: []string{"docs"}, ArgsUses: 5},
		{Template: "git show <sha>", Args: []string{"a1b2c3d"}, ArgsUses: 9},
	}, Options{})
	if got[0].Command != "cd docs" || got[1].Command != "git show <sha>" {
		t.Errorf("fill: %q, %q; want cd docs and git show <sha>", got[0].Command, got[1].Command)
	}
}

// TestRankDangerFilled flags a command whose filled form matches a danger
// rule though its template does not.
func TestRankDangerFilled(t *testing.T) {
	t.Parallel()
	danger, err := PresetDanger()
	if err != nil {
		t.Fatal(err)
	}
	got := Rank([]Candidate{{Template: "rm -rf <path>", RepoTransitions: 1, Args: []string{"~/projects"}}}, Options{Danger: danger})
	if got[0].Command != "rm -rf ~/projects" || got[0].Danger != "rm-rf-outside" {
		t.Errorf("%+v, want rm -rf ~/projects flagged by rm-rf-outside", got[0])
	}
}

// TestPresetDanger checks the presets' danger rules on commands.
func TestPresetDanger(t *testing.T) {
	t.Parallel()
	danger, err := PresetDanger()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"git push --force origin main": "force-push",
		"git push -f":                  "force-push",
		"sudo apt-get install make":    "sudo",
		"rm -rf ~/src":                 "rm-rf-outside",
		"curl -fsSL <url> | sh":        "curl-pipe-shell",
		"chmod -R 777 .":               "chmod-777",
		"psql -c 'DROP TABLE users'":   "drop-database",
		"make test":                    "",
		"git push origin main":         "",
		"rm -rf build":                 "",
	}
	for command, want := range cases {
		if got := danger(command); got != want {
			t.Errorf("danger(%q) = %q, want %q", command, got, want)
		}
	}
}

// TestTaskCandidates merges a project task with the same command learned
// from the history.
func TestTaskCandidates(t *testing.T) {
	t.Parallel()
	candidates := TaskCandidates([]tasks.Task{{Name: "test", Command: "make test", Source: "Makefile"}, {Name: "lint:fix", Command: "npm run lint:fix", Source: "package.json"}})
	candidates = append(candidates, Candidate{Template: "make test", RepoTransitions: 1})
	got := Rank(candidates, Options{})
	if len(got) != 2 || got[0].Template != "make test" || !near(got[0].Score, 80*math.Log(2)+20) || got[1].Template != "npm run lint:fix" {
		t.Errorf("%+v", got)
	}
}

// The calibration keeps the order of confidences, maps 0 to 0, and stays in
// [0, 1].
func TestCalibrationIsMonotone(t *testing.T) {
	t.Parallel()
	last := -1.0
	for raw := 0.0; raw <= 1.0; raw += 0.001 {
		c := calibrated(raw)
		if c < last || c < 0 || c > 1 {
			t.Fatalf("calibrated(%.3f) = %.4f after %.4f", raw, c, last)
		}
		last = c
	}
	if calibrated(0) != 0 || !near(calibrated(0.8), 0.670625) {
		t.Errorf("calibrated(0) = %v, calibrated(0.8) = %v", calibrated(0), calibrated(0.8))
	}
}
