package daemon_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/store"
)

// scoreDaemon is a daemon with the score ranker and the tests'
// understander.
func scoreDaemon(t *testing.T) *running {
	t.Helper()
	cfg := config(t)
	cfg.Understander = &understander{tasks: map[string][]store.Task{}}
	ranker, err := daemon.NewRanker()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Ranker = ranker
	return start(t, cfg)
}

// The work tree fills the slot it surely stands for, the reply tells what
// the suggestions were drawn from, and each command that ended a moment ago
// is stored with its branch and whether the tree was dirty.
func TestTheWorkTreeFillsSlotsAndIsTheReplysContext(t *testing.T) {
	t.Parallel()
	d := scoreDaemon(t)
	d.u.setTree("/repo/app", gitctx.Status{Branch: "feature/login", Dirty: true, Unstaged: []string{"src/new file.go"}})
	now := time.Now()
	var lines []string
	for i := range 3 {
		at := now.Add(time.Duration(i-3) * time.Second)
		lines = append(lines, event("a", "/repo/app", "vim src/old.go", at), event("a", "/repo/app/src", "git add src/old.go", at.Add(time.Millisecond)))
	}
	lines = append(lines, event("a", "/repo/app", "vim src/old.go", now))
	d.ingest(t, lines...)
	d.u.mu.Lock()
	reads := d.u.treeReads
	d.u.mu.Unlock()
	if reads != 1 {
		t.Errorf("the work tree was read %d times for one batch, want once", reads)
	}

	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "a", Cwd: "/repo/app/src", LastCmd: "vim src/old.go", Shell: "bash"})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Suggestions) == 0 || reply.Suggestions[0].Command != "git add 'new file.go'" {
		t.Fatalf("suggestions %+v, want git add of the one file changed, from the shell's folder, quoted", reply.Suggestions)
	}
	if !slices.Contains(reply.Suggestions[0].Reasons, "the one file changed and not staged") {
		t.Errorf("reasons %q", reply.Suggestions[0].Reasons)
	}
	c := reply.Context
	if c.RepoKey != "key-app" || c.Previous != "vim <path>" || c.Branch != "feature/login" || c.Dirty == nil || !*c.Dirty {
		t.Errorf("context %+v", c)
	}
	for _, src := range []string{"repo_transitions", "repo_frequency", "work_tree"} {
		if !slices.Contains(c.Sources, src) {
			t.Errorf("sources %q lack %s", c.Sources, src)
		}
	}

	rows, err := openRaw(t, d.cfg.Database).Query(`SELECT cmd, branch, dirty FROM command_events ORDER BY ts_ms`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var cmd, branch string
		var dirty *bool
		if err := rows.Scan(&cmd, &branch, &dirty); err != nil {
			t.Fatal(err)
		}
		got = append(got, branch+" "+map[bool]string{true: "dirty", false: "clean"}[dirty != nil && *dirty]+" "+map[bool]string{true: "known", false: "unknown"}[dirty != nil])
	}
	if len(got) != 7 || got[6] != "feature/login dirty known" || got[0] != "feature/login dirty known" {
		t.Errorf("stored trees %q", got)
	}
}

// A command an hour old is stored without a tree, the reply's JSON has its
// context block, and a branch whose name holds a secret is never shown.
func TestAnOldCommandHasNoTreeAndASecretBranchIsNotShown(t *testing.T) {
	t.Parallel()
	d := scoreDaemon(t)
	secret := "ghp_" + "R4nd0mT0k3nV4lu3Th4tL00ksR3al1234567"
	d.u.setTree("/repo/app", gitctx.Status{Branch: secret, Dirty: false})
	d.ingest(t, event("a", "/repo/app", "make test", time.Now().Add(-time.Hour)), event("a", "/repo/app", "go vet ./...", time.Now()))
	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "a", Cwd: "/repo/app"})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Context.Branch != "" || reply.Context.Dirty == nil || *reply.Context.Dirty {
		t.Errorf("context %+v", reply.Context)
	}
	body, _ := json.Marshal(reply)
	if strings.Contains(string(body), secret) {
		t.Fatalf("the secret branch is in the reply: %s", body)
	}
	var branches []string
	rows, err := openRaw(t, d.cfg.Database).Query(`SELECT branch || '/' || coalesce(dirty, 'unknown') FROM command_events ORDER BY ts_ms`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		branches = append(branches, b)
	}
	if !slices.Equal(branches, []string{"/unknown", "/0"}) {
		t.Errorf("stored %q, want the old command's tree unknown and the secret branch left out", branches)
	}
}

// Outside any repository, the commands run out here lately (the cd into
// a project) come before the projects' own commands, and the other folders
// gone to lately are offered too.
func TestOutsideARepositoryWhatRunsThereComesFirst(t *testing.T) {
	t.Parallel()
	d := scoreDaemon(t)
	now := time.Now()
	var lines []string
	for i, project := range []string{"/repo/api", "/repo/web", "/repo/ml", "/repo/api"} {
		at := now.Add(time.Duration(i-10) * time.Minute)
		lines = append(lines, event("s"+project, "/home/u", "cd "+project, at))
		for j := range 5 {
			lines = append(lines, event("s"+project, project, "make test", at.Add(time.Duration(j+1)*time.Second)))
		}
	}
	d.ingest(t, lines...)
	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "new", Cwd: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range reply.Suggestions {
		got = append(got, s.Command)
	}
	if len(got) < 3 || got[0] != "cd /repo/api" || !slices.Contains(got[:3], "cd /repo/ml") {
		t.Fatalf("suggestions %q, want the last cd first and another folder among the first three", got)
	}
}
