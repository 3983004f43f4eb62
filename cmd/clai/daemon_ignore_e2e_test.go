package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
)

// TestTheDaemonTakesItsStopListFromTheConfigFile: history.ignore in the
// config file replaces the default stop-list; a bad one stops the daemon
// with the place of the mistake.
func TestTheDaemonTakesItsStopListFromTheConfigFile(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	config := filepath.Join(e.dir, "config")
	if err := os.MkdirAll(filepath.Join(config, "clai"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig := func(src string) {
		if err := os.WriteFile(filepath.Join(config, "clai", "config.yaml"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+config)
	writeConfig("history:\n  ignore: [make lint]\n")
	e.startDaemon(t)
	now := time.Now()
	var lines strings.Builder
	for i := range 3 {
		at := now.Add(time.Duration(i) * time.Minute)
		lines.WriteString(commandLine("s1", e.dir, "git pull", at))
		lines.WriteString(commandLine("s1", e.dir, "make lint", at.Add(time.Second)))
		lines.WriteString(commandLine("s1", e.dir, "git pull", at.Add(2*time.Second)))
		lines.WriteString(commandLine("s1", e.dir, "clear", at.Add(3*time.Second)))
	}
	c := daemon.NewClient(e.socket())
	accepted, _, err := c.Ingest(t.Context(), []byte(lines.String()))
	if err != nil || accepted != 9 {
		t.Fatalf("ingest: %d taken, %v; want 9, make lint left out", accepted, err)
	}
	reply, err := c.Suggest(t.Context(), daemon.SuggestRequest{Session: "s2", Cwd: e.dir, LastCmd: "git pull"})
	if err != nil {
		t.Fatal(err)
	}
	cleared := false
	for _, s := range reply.Suggestions {
		cleared = cleared || s.Command == "clear"
		if s.Command == "make lint" {
			t.Errorf("suggested %+v", s)
		}
	}
	if !cleared {
		t.Errorf("after git pull, with clear off the stop-list: %+v", reply.Suggestions)
	}
	// A second daemon, with a bad config file, says so before it looks for
	// the first.
	writeConfig("history:\n  ignore: [\"\"]\n")
	if _, stderr, code := e.clai(t, "daemon"); code != 2 || !strings.Contains(stderr, "config.yaml:2:12: error: history.ignore[0] is empty") {
		t.Fatalf("clai daemon with an empty command to ignore: exit %d\n%s", code, stderr)
	}
}
