package daemon_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
)

// eventExit is a command event that ended with exit.
func eventExit(session, cwd, cmd string, exit int, at time.Time) string {
	return fmt.Sprintf(`{"v":1,"type":"command","session":%q,"shell":"bash","pid":1,"ts_ms":%d,"cwd":%q,"cmd":%q,"exit":%d,"duration_ms":3}`+"\n",
		session, at.UnixMilli(), cwd, cmd, exit)
}

// TestNoiseIsNotLearnt: a command not found (127) or not runnable (126),
// and the stop-list's (clear), are neither learnt nor in the way of the
// steps around them; a command that failed otherwise is learnt. The config's
// stop-list replaces the default one.
func TestNoiseIsNotLearnt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		ignore []string
		next   []string
		noise  int64
	}{
		{name: "default stop-list", next: []string{"git diff"}, noise: 3},
		{name: "a stop-list of the config", ignore: []string{"git diff", "make lint"}, next: []string{"clear"}, noise: 4},
		{name: "no stop-list", ignore: []string{}, next: []string{"clear"}, noise: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := config(t)
			cfg.Ignore = c.ignore
			d := start(t, cfg)
			now := time.Now()
			at := func(s int) time.Time { return now.Add(time.Duration(s) * time.Second) }
			accepted, _ := d.ingest(t,
				eventExit("a", "/repo/app", "git status", 0, at(0)),
				eventExit("a", "/repo/app", "clear", 0, at(1)),
				eventExit("a", "/repo/app", "gti status", 127, at(2)),
				eventExit("a", "/repo/app", "./build.sh", 126, at(3)),
				eventExit("a", "/repo/app", "git diff", 0, at(4)),
				eventExit("a", "/repo/app", "make lint", 2, at(5)),
			)
			if want := 6 - int(c.noise); accepted != want {
				t.Errorf("ingest took %d, want %d", accepted, want)
			}
			if _, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "c", Cwd: "/repo/app", LastCmd: "git status", Limit: 5}); err != nil {
				t.Fatal(err)
			}
			ev := d.r.evidence()
			var next []string
			for _, tr := range ev.RepoTransitions {
				next = append(next, tr.Next)
			}
			if strings.Join(next, ",") != strings.Join(c.next, ",") {
				t.Errorf("after git status, learnt %q, want %q", next, c.next)
			}
			for _, cmd := range ev.RepoCommands {
				if cmd.Template == "gti status" || cmd.Template == "./build.sh" {
					t.Errorf("learnt %q", cmd.Template)
				}
			}
			var h daemon.Health
			if err := d.client.Get(t.Context(), "/healthz", &h); err != nil {
				t.Fatal(err)
			}
			if h.Noise != c.noise {
				t.Errorf("healthz counts %d noisy commands, want %d", h.Noise, c.noise)
			}
		})
	}
}

// TestTheScoreRankerNeverSuggestsTheStopList: clear, learnt while the
// stop-list was empty, is not suggested by a ranker of the default one.
func TestTheScoreRankerNeverSuggestsTheStopList(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Ignore = []string{}
	ranker, err := daemon.NewRanker()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Ranker = ranker
	d := start(t, cfg)
	now := time.Now()
	var lines []string
	for i := range 3 {
		lines = append(lines, event("a", "/repo/app", "git status", now.Add(time.Duration(2*i)*time.Second)), event("a", "/repo/app", "clear", now.Add(time.Duration(2*i+1)*time.Second)))
	}
	d.ingest(t, lines...)
	reply, err := d.client.Suggest(t.Context(), daemon.SuggestRequest{Session: "c", Cwd: "/repo/app", LastCmd: "git status", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Suggestions) == 0 {
		t.Fatal("no suggestion at all: the test learnt nothing")
	}
	for _, s := range reply.Suggestions {
		if s.Template == "clear" {
			t.Errorf("suggested %+v", s)
		}
	}
}

// TestABadStopListIsRefused: the daemon does not start with a stop-list
// entry it cannot use, and says which.
func TestABadStopListIsRefused(t *testing.T) {
	t.Parallel()
	cfg := config(t)
	cfg.Ignore = []string{"clear", ""}
	err := daemon.Run(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "#2 is empty") {
		t.Errorf("Run = %v, want the empty entry named", err)
	}
}
