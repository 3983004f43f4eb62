package sessions

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// plain is an Understander and a Ranker that know nothing: the daemon here
// only needs to serve.
type plain struct{}

func (plain) Command(line string) normalize.Command               { return normalize.Command{Template: line} }
func (plain) Repo(context.Context, string, bool) (string, string) { return "", "" }
func (plain) Tasks(context.Context, string) ([]store.Task, error) { return nil, nil }
func (plain) Rank(daemon.Evidence, int) []daemon.Suggestion       { return nil }
func (plain) WorkTree(context.Context, string, bool) (gitctx.Status, bool) {
	return gitctx.Status{}, false
}

// logged tells when a line containing a word is written.
type logged struct {
	word string
	seen chan struct{}
}

func (l *logged) Write(p []byte) (int, error) {
	if l.seen != nil && strings.Contains(string(p), l.word) {
		close(l.seen)
		l.seen = nil
	}
	return len(p), nil
}

// The suggestion daemon serves its socket in the same folder as the
// sessions: a listing neither takes its files for a session nor removes them.
func TestListLeavesTheSuggestionDaemonAlone(t *testing.T) {
	t.Parallel()
	r := openTemp(t)
	register(t, r, newFakeDesk("one"))
	socket := filepath.Join(r.Dir(), "daemon.sock")
	ctx, cancel := context.WithCancel(context.Background())
	serving := &logged{word: "serving on", seen: make(chan struct{})}
	seen := serving.seen
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Config{Socket: socket, Database: filepath.Join(t.TempDir(), "suggest.db"), Understander: plain{}, Ranker: plain{}, Log: serving})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-seen:
	case err := <-done:
		t.Fatalf("the daemon ended: %v", err)
	}
	c := daemon.NewClient(socket)
	if _, _, err := c.Ingest(t.Context(), []byte(`{"v":1,"type":"session_start","session":"l-7","pid":7,"ts_ms":1}`+"\n")); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadDir(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		found, err := r.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Session.Name != "one" {
			t.Fatalf("found %+v, want session one alone", found)
		}
	}
	after, err := os.ReadDir(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"daemon.sock", "daemon.lock", "shell-sessions"} {
		if !slices.Contains(dirNames(before), name) {
			t.Fatalf("the folder holds %v, without the daemon's %s", dirNames(before), name)
		}
	}
	if !slices.Equal(dirNames(before), dirNames(after)) {
		t.Fatalf("a listing changed the folder: %v, then %v", dirNames(before), dirNames(after))
	}
	if _, err := c.Health(t.Context()); err != nil {
		t.Fatalf("the daemon after the listings: %v", err)
	}
}
