package score

import (
	"strings"
	"testing"
	"time"
)

// TestRankLeavesOutTheStopList: clear after git status, learnt from a
// history that cleared its screen, is never suggested, nor any command on
// the stop-list given; an empty list leaves all in.
func TestRankLeavesOutTheStopList(t *testing.T) {
	t.Parallel()
	candidates := []Candidate{
		{Template: "git diff", RepoTransitions: 3},
		{Template: "clear", RepoTransitions: 20},
		{Template: "clear -x", GlobalTransitions: 2},
		{Template: "history", RepoFrequency: 9},
		{Template: "exit", GlobalTransitions: 4},
		{Template: "ls -la", RepoTransitions: 2},
		{Template: "clearml run", RepoTransitions: 1},
	}
	templates := func(s []Suggestion) string {
		var out []string
		for _, x := range s {
			out = append(out, x.Template)
		}
		return strings.Join(out, ",")
	}
	if got, want := templates(Rank(candidates, Options{Previous: "git status"})), "git diff,ls -la,clearml run"; got != want {
		t.Errorf("with the default stop-list: %s, want %s", got, want)
	}
	if got, want := templates(Rank(candidates, Options{Ignore: []string{"ls", "git diff"}})), "clear,exit,history,clear -x,clearml run"; got != want {
		t.Errorf("with ls and git diff ignored: %s, want %s", got, want)
	}
	if got := Rank(candidates, Options{Ignore: []string{}}); len(got) != len(candidates) {
		t.Errorf("with nothing ignored: %s", templates(got))
	}
}

func TestIgnoredMatchesWholeWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		template string
		ignore   []string
		want     bool
	}{
		{"clear", defaultIgnore, true},
		{"clear -x", defaultIgnore, true},
		{"clearml run", defaultIgnore, false},
		{"exit <num>", defaultIgnore, true},
		{"git status", defaultIgnore, false},
		{"git stash list", []string{"git stash list"}, true},
		{"git stash list --all", []string{"git  stash list"}, true},
		{"git stash", []string{"git stash list"}, false},
		{"", defaultIgnore, false},
		{"ls", []string{"  "}, false},
	} {
		if got := Ignored(c.template, c.ignore); got != c.want {
			t.Errorf("Ignored(%q, %q) = %v", c.template, c.ignore, got)
		}
	}
}

func TestCheckIgnore(t *testing.T) {
	t.Parallel()
	if err := CheckIgnore(defaultIgnore); err != nil {
		t.Errorf("the default stop-list: %v", err)
	}
	for _, bad := range [][]string{
		{"clear", " "},
		{strings.Repeat("x", MaxIgnoreBytes+1)},
		{"a\nb"},
		{"a\xffb"},
		make([]string, MaxIgnore+1),
	} {
		if err := CheckIgnore(bad); err == nil {
			t.Errorf("CheckIgnore(%.60q) took it", bad)
		}
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	for exit, want := range map[int]bool{0: false, 1: false, 2: false, 126: true, 127: true, 128: false, 130: false} {
		if NotFound(exit) != want {
			t.Errorf("NotFound(%d) = %v", exit, !want)
		}
	}
}

// TestAOneOffLongAgoRanksBelowHabits: a command that followed the previous
// one once, a month ago, ranks below the habits that followed it twice, and
// below those frequent in the repository; a one-off of an hour ago still
// ranks as before.
func TestAOneOffLongAgoRanksBelowHabits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	candidates := []Candidate{
		{Template: "terraform destroy -target <arg>", RepoTransitions: 1, RepoTransitionLast: now.Add(-30 * 24 * time.Hour)},
		{Template: "go test ./...", RepoTransitions: 2, RepoTransitionLast: now.Add(-40 * 24 * time.Hour)},
		{Template: "git diff", RepoFrequency: 2},
		{Template: "make vet", GlobalTransitions: 1, GlobalTransitionLast: now.Add(-time.Hour)},
	}
	got := Rank(candidates, Options{Now: now})
	var order []string
	for _, s := range got {
		order = append(order, s.Template)
	}
	if want := "go test ./...,make vet,git diff,terraform destroy -target <arg>"; strings.Join(order, ",") != want {
		t.Errorf("ranked %q, want %s", order, want)
	}
	last := got[len(got)-1]
	if !strings.Contains(last.Reasons[0], "(1×, last 30d ago)") {
		t.Errorf("the one-off's reason: %q", last.Reasons)
	}
	// An hour-old one-off: 60·ln(1+2^(-1/168)) against 60·ln 2.
	if got[1].Score > 60*0.6932 || got[1].Score < 60*0.69 {
		t.Errorf("the hour-old one-off scores %.3f", got[1].Score)
	}
	// Without the time of asking, the one-off is weighed as before.
	if got := Rank(candidates, Options{}); got[0].Template != "go test ./..." || got[1].Template != "terraform destroy -target <arg>" {
		t.Errorf("without now: %+v", got)
	}
}
