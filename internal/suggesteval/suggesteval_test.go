package suggesteval

import (
	"slices"
	"strings"
	"testing"
)

// A history is the same for the same seed, spans the three repositories,
// and holds typos that the shell did not find.
func TestGenerate(t *testing.T) {
	t.Parallel()
	a, b := Generate(7, "/src", 2000), Generate(7, "/src", 2000)
	if len(a) != 2000 || !slices.Equal(a, b) {
		t.Fatal("a seed does not make one history")
	}
	repos, typos, sessions := map[string]bool{}, 0, map[string]bool{}
	for _, s := range a {
		repos[s.Repo] = true
		sessions[s.Session] = true
		if s.Exit == 127 {
			typos++
		}
		if s.Repo != "" && !strings.HasPrefix(s.Cwd, s.Repo) {
			t.Fatalf("step %+v ran outside its repository", s)
		}
	}
	for _, r := range Repos("/src") {
		if !repos[r] {
			t.Errorf("no step in %s", r)
		}
	}
	if typos == 0 || len(sessions) < 10 {
		t.Errorf("%d typos, %d sessions", typos, len(sessions))
	}
}

// The baselines learn as they go: a loop run over and over is predicted by
// Markov at rank one, and a frequency baseline finds the commonest command.
func TestBaselinesLearn(t *testing.T) {
	t.Parallel()
	var steps []Step
	for range 50 {
		for _, c := range []string{"vim a.go", "go test ./...", "git commit -m x"} {
			steps = append(steps, Step{Session: "s", Repo: "/r", Cwd: "/r", Cmd: c})
		}
	}
	res, err := Run(steps, nil, &Frequency{}, &Markov{}, &Markov{Fallback: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := res[1]; m.Exact[0] < len(steps)-5 {
		t.Errorf("Markov got %d of %d at rank one", m.Exact[0], len(steps))
	}
	if f := res[0]; f.Exact[2] < len(steps)-5 {
		t.Errorf("frequency got %d of %d in its top five", f.Exact[2], len(steps))
	}
	if res[2].Exact[0] < res[1].Exact[0] {
		t.Errorf("the fallback lost hits: %d against %d", res[2].Exact[0], res[1].Exact[0])
	}
}

// A predictor that states 90% and is always wrong is 90 points off; one
// that states what it hits is calibrated.
func TestCalibrationGap(t *testing.T) {
	t.Parallel()
	r := Result{}
	r.Buckets[9] = Bucket{N: 10, Hits: 0, Stated: 9}
	r.Buckets[5] = Bucket{N: 10, Hits: 5, Stated: 5}
	if g := r.CalibrationGap(5); g < 89.9 || g > 90.1 {
		t.Errorf("gap %.1f, want 90", g)
	}
	if g := r.MeanGap(); g < 44.9 || g > 45.1 {
		t.Errorf("mean gap %.1f, want 45", g)
	}
}
