package daemon_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/fakeclock"
	"github.com/clai-sh/clai/internal/sqlitefile/sqlitefiletest"
	"github.com/clai-sh/clai/runner/suggest/daemon"
)

// settle waits until the daemon committed what it took.
func (r *running) settle(t *testing.T) {
	t.Helper()
	var scores struct{ Scores []struct{ Template string } }
	if err := r.client.Get(t.Context(), "/debug/scores", &scores); err != nil {
		t.Fatal(err)
	}
}

func TestARetentionPurgeLeavesNoTraceWhileTheDaemonRuns(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	day := 24 * time.Hour
	clock := fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	cfg.Clock, cfg.Retention, cfg.PurgeEvery = clock, 30*day, time.Hour
	d := start(t, cfg)
	clock.WaitFor(t, time.Hour)
	now := clock.Now()
	const secret = "purged-marker-4b0e1d77"
	var lines []string
	for i := range 40 {
		lines = append(lines, event("a", "/repo/app", "make build", now.Add(-5*day+time.Duration(i)*time.Minute)))
	}
	lines = append(lines, event("b", "/repo/app", "echo "+secret, now.Add(-25*day)))
	d.ingest(t, lines...)
	d.settle(t)
	if got := sqlitefiletest.Traces(t, cfg.Database, secret); len(got) == 0 {
		t.Fatal("the command was never written")
	}
	clock.Advance(10*day + time.Minute)
	if line := d.log.waitFor(t, "purged"); !strings.Contains(line, "purged 1 events") || !strings.Contains(line, "scrubbed") {
		t.Fatalf("purge: %q", line)
	}
	if got := sqlitefiletest.Traces(t, cfg.Database, secret); len(got) > 0 {
		t.Fatalf("the purged command is still in %v, the daemon running", got)
	}
}

func TestForgetThroughTheDaemonLeavesNoTrace(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	d := start(t, cfg)
	now := time.Now()
	const secret = "forget-marker-9c2f55a1"
	d.ingest(t,
		event("a", "/repo/app", "make build", now),
		event("a", "/repo/app", "curl https://x.example/"+secret, now.Add(time.Second)),
		event("a", "/repo/app", "make test", now.Add(2*time.Second)),
		event("a", "/repo/app", "make build", now.Add(3*time.Second)),
	)
	d.settle(t)
	// A suggestion asked before the forget reads the recent commands,
	// which the store then keeps; the one asked after must not offer the
	// forgotten command's args.
	if !strings.Contains(recentArgs(t, d), secret) {
		t.Fatal("the recent args do not hold the command before the forget: the test sees nothing")
	}
	for _, bad := range []daemon.ForgetRequest{{}, {Pattern: "x*", Regex: true}, {Pattern: "(", Regex: true}, {Pattern: strings.Repeat("x", daemon.MaxPattern+1)}} {
		if _, err := d.client.Forget(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "400") {
			t.Fatalf("forget %+v: %v, want a bad request", bad, err)
		}
	}
	reply, err := d.client.Forget(t.Context(), daemon.ForgetRequest{Pattern: `/forget-marker-[0-9a-f]+\b`, Regex: true})
	if err != nil || reply.Events != 1 {
		t.Fatalf("forget: %+v, %v", reply, err)
	}
	if got := recentArgs(t, d); strings.Contains(got, secret) || !strings.Contains(got, "make") {
		t.Fatalf("the recent uses after forget: %s", got)
	}
	var tr struct{ Transitions []struct{ Prev, Next string } }
	if err := d.client.Get(t.Context(), "/debug/transitions?repo=key-app", &tr); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range tr.Transitions {
		got = append(got, x.Prev+">"+x.Next)
	}
	if strings.Contains(strings.Join(got, " "), "curl") || len(got) == 0 {
		t.Fatalf("transitions after forget: %v", got)
	}
	if got := sqlitefiletest.Traces(t, cfg.Database, secret); len(got) > 0 {
		t.Fatalf("the forgotten command is still in %v, the daemon running", got)
	}
	if line := d.log.waitFor(t, "forgot"); strings.Contains(line, secret) || !strings.Contains(line, "forgot 1 command events") {
		t.Fatalf("log: %q", line)
	}
}

// With no daemon, Forget takes the daemon's lock and forgets in the
// database itself.
func TestForgetWithNoDaemonWorksOnTheDatabase(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	d := start(t, cfg)
	const secret = "offline-marker-51ac0e"
	d.ingest(t, event("a", "/repo/app", "echo "+secret, time.Now()), event("a", "/repo/app", "ls", time.Now()))
	d.settle(t)
	if err := d.stop(); err != nil {
		t.Fatal(err)
	}
	if got := sqlitefiletest.Traces(t, cfg.Database, secret); len(got) == 0 {
		t.Fatal("the command was never written")
	}
	reply, err := daemon.Forget(t.Context(), cfg, daemon.ForgetRequest{Pattern: secret})
	if err != nil || reply.Events != 1 {
		t.Fatalf("forget: %+v, %v", reply, err)
	}
	if got := sqlitefiletest.Traces(t, cfg.Database, secret); len(got) > 0 {
		t.Fatalf("the forgotten command is still in %v", got)
	}
}

// recentArgs asks a suggestion in /repo/app and returns the recent uses the
// daemon gave the ranker, as text.
func recentArgs(t *testing.T, d *running) string {
	t.Helper()
	if _, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "a", Cwd: "/repo/app", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for template, r := range d.r.evidence().Recent {
		fmt.Fprintf(&b, "%s %d×: %q\n", template, r.Count, r.Args)
	}
	return b.String()
}
