package core

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/sessions"
)

// stillDesk is the desk of a run that asks nothing.
type stillDesk struct{ id string }

func (d stillDesk) Session() ask.Session { return ask.Session{ID: d.id, Name: "still"} }
func (d stillDesk) Screen() ask.Screen   { return ask.Screen{} }
func (d stillDesk) Answer(context.Context, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "nothing asked"}
}
func (d stillDesk) Watch(ctx context.Context) <-chan ask.Update {
	ch := make(chan ask.Update)
	context.AfterFunc(ctx, func() { close(ch) })
	return ch
}

// listed lists the ids of the sessions registered in dir.
func listed(t *testing.T, dir string) []string {
	t.Helper()
	reg, err := sessions.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	found, err := reg.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range found {
		ids = append(ids, f.Session.ID)
	}
	return ids
}

// TestAShortRunIsNeverRegistered: a run that ends before RegisterAfter
// never touched the sessions folder: no entry, no socket, not even the
// folder's lock, which every registration takes.
func TestAShortRunIsNeverRegistered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "clai")
	s := NewServer(dir, io.Discard)
	s.after = time.Hour
	s.Ready(stillDesk{id: "short"})
	s.Close(io.Discard)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the sessions folder holds %s after a run younger than RegisterAfter", e.Name())
	}
}

// TestRegisteredRegistersAtOnce: a run that must be reachable (a headless
// run's hint names it) is registered when asked, long before RegisterAfter,
// and its entry goes with Close.
func TestRegisteredRegistersAtOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "clai")
	s := NewServer(dir, io.Discard)
	s.after = time.Hour
	s.Ready(stillDesk{id: "asked"})
	if !s.Registered() {
		t.Fatal("Registered reports false")
	}
	if ids := listed(t, dir); len(ids) != 1 || ids[0] != "asked" {
		t.Fatalf("listed %v, want [asked]", ids)
	}
	s.Close(io.Discard)
	if ids := listed(t, dir); len(ids) != 0 {
		t.Fatalf("listed after its end: %v", ids)
	}
}

// TestALongerRunIsRegistered: a run that lives RegisterAfter is listed
// without anyone asking.
func TestALongerRunIsRegistered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "clai")
	s := NewServer(dir, io.Discard)
	s.after = time.Millisecond
	s.Ready(stillDesk{id: "long"})
	deadline := time.Now().Add(10 * time.Second)
	for len(listed(t, dir)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("not listed within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.Close(io.Discard)
	if ids := listed(t, dir); len(ids) != 0 {
		t.Fatalf("listed after its end: %v", ids)
	}
}
