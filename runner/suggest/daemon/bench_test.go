package daemon_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// benchCommands are the command lines of the benchmark's history, and the
// templates the tests' understander makes of them.
var benchCommands = []string{
	"git pull", "git status", "make test", "make lint", "go test ./...",
	"vim cmd/main.go", "vim store/db.go", "vim docs/readme.md", "git commit -m fix", "git commit -m wip",
	"git push origin main", "ls", "cd ..", "cat go.mod",
}

// fillHistory writes n commands in 20 repositories (/repo/r0 to r19) to a
// new database at path, and learns from them.
func fillHistory(b *testing.B, path string, n int) {
	b.Helper()
	ctx := b.Context()
	s, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var u understander
	rnd := rand.New(rand.NewPCG(25, 1))
	at := time.Now().Add(-time.Duration(n) * time.Second)
	es := make([]store.Event, 0, 10_000)
	for i := range n {
		line := benchCommands[rnd.IntN(len(benchCommands))]
		cwd := fmt.Sprintf("/repo/r%d", rnd.IntN(20))
		key, _ := u.Repo(ctx, cwd, false)
		c := u.Command(line)
		es = append(es, store.Event{Kind: store.Command, Session: fmt.Sprintf("s%d", i/500), Shell: "bash", At: at.Add(time.Duration(i) * time.Second),
			Cwd: cwd, RepoKey: key, Cmd: line, Template: c.Template, Args: c.Args, Duration: -1})
		if len(es) == cap(es) || i == n-1 {
			if err := s.Import(ctx, es); err != nil {
				b.Fatal(err)
			}
			es = es[:0]
		}
	}
	if err := s.RebuildAggregates(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSuggestRequest is the daemon's own time for a suggestion
// (POST /suggest over its socket, the client's share with it) against a
// database of 100,000 commands, with the score ranker; the repository's
// work tree and tasks are the tests' understander's, which reads no disk.
func BenchmarkSuggestRequest(b *testing.B) {
	cfg := config(b)
	cfg.Ranker = nil
	fillHistory(b, cfg.Database, 100_000)
	d := start(b, cfg)
	req := daemon.SuggestRequest{Session: "bench", Cwd: "/repo/r3", LastCmd: "git pull", Limit: 5, Shell: "bash"}
	for b.Loop() {
		reply, err := d.client.Suggest(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		if len(reply.Suggestions) == 0 {
			b.Fatal("no suggestion")
		}
	}
}
