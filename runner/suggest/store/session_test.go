package store_test

import (
	"testing"

	"github.com/clai-sh/clai/runner/suggest/store"
)

func TestSessionShellIsTheShellItsHooksNamed(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	fish := cmd("f", "", "ls", 0)
	fish.Shell = "fish"
	later := cmd("f", "", "pwd", 1)
	later.Shell = "" // an event that names no shell keeps the one named
	if err := s.Apply(t.Context(), []store.Event{cmd("b", "", "ls", 0), fish, later}); err != nil {
		t.Fatal(err)
	}
	for session, want := range map[string]string{"b": "bash", "f": "fish", "nobody": ""} {
		got, err := s.SessionShell(t.Context(), session)
		if err != nil || got != want {
			t.Errorf("SessionShell(%q) = %q, %v; want %q", session, got, err, want)
		}
	}
}
