package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/golden"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/files"
)

// TestLintGolden lints each fixture in testdata/lint and compares the text output,
// its closing count included, with its .golden file. Every check of the catalogue must have a fixture that
// triggers it.
func TestLintGolden(t *testing.T) {
	t.Parallel()
	fixtures, err := filepath.Glob("../../testdata/lint/*.yaml")
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	seen := map[string]bool{}
	for _, path := range fixtures {
		res := lintPaths([]string{path})
		for _, f := range res.Findings {
			seen[f.Rule] = true
		}
		var out bytes.Buffer
		if err := writeLint(&out, &out, "text", res, nil, ""); err != nil {
			t.Fatal(err)
		}
		// Golden files hold paths relative to the repository root.
		got := strings.ReplaceAll(out.String(), "../../testdata/", "testdata/")
		golden.Check(t, strings.TrimSuffix(path, ".yaml")+".golden", got)
	}
	for _, r := range diag.Rules() {
		if r.ID != "io" && !seen[r.ID] {
			t.Errorf("no fixture in testdata/lint triggers check %q", r.ID)
		}
	}
}

func TestLintMissingAndEmpty(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	res := files.Lint([]string{"../../testdata/lint/does-not-exist.yaml", empty})
	if len(res.Findings) != 2 {
		t.Fatalf("want 2 findings, got %v", res.Findings)
	}
	for _, f := range res.Findings {
		if f.Rule != "io" || f.Severity != diag.Error {
			t.Errorf("want an io error, got %v", f)
		}
	}
}

func TestLintFolderFindsEveryPlaybook(t *testing.T) {
	t.Parallel()
	res := files.Lint([]string{"../../testdata/lint"})
	fixtures, _ := filepath.Glob("../../testdata/lint/*.yaml")
	if len(res.Files) != len(fixtures) {
		t.Fatalf("linted %d files, want %d", len(res.Files), len(fixtures))
	}
}

// TestLintChecksChannelNamesAgainstTheConfig: a playbook's channels: that
// names what the user config declares no channel or target by is an error
// at its file:line:col, with the names there are: clai run would refuse to
// start. A config that declares none (a machine joined to a hub) says
// nothing.
func TestLintChecksChannelNamesAgainstTheConfig(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	pb := filepath.Join(e.dir, "deploy.yaml")
	if err := os.WriteFile(pb, []byte("version: 1\nname: deploy\nchannels: [phone, pager]\nspawn: {command: [sh]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(e.dir, "config.yaml")
	if err := os.WriteFile(config, []byte("channels:\n  - name: phone\n    ntfy: {topic: alice-questions}\nnotify:\n  - desktop: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.clai(t, "lint", "--config", config, pb)
	want := pb + `:3:11: error: channels: the user config ` + config + ` has no channel or notify target "pager"`
	if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "use one of desktop, phone") || strings.Contains(stdout, `"phone"`) {
		t.Fatalf("clai lint: exit %d\n%s%s", code, stdout, stderr)
	}
	if err := os.WriteFile(config, []byte("history: {ignore: [ls]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := e.clai(t, "lint", "--config", config, pb); code != 0 {
		t.Fatalf("clai lint with a config that declares no channel: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestLintReadsTheChannelsSettings: clai lint reads a config's channels as
// their kinds do (the lean clai hands such a config to the full one, which
// has them): a mistake in a channel's settings is an error at its
// file:line:col, and an unknown kind says which there are.
func TestLintReadsTheChannelsSettings(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	config := filepath.Join(e.dir, "config.yaml")
	src := "channels:\n  - ntfy: {topic: \"a/b\"}\n  - name: work\n    slack: {token: env:SLACK}\n"
	if err := os.WriteFile(config, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.clai(t, "lint", "--config", config)
	for _, want := range []string{
		config + ":2:19: error: channels[0].ntfy.topic is not an ntfy topic",
		config + `:3:5: error: channel "work": clai has no channel of kind "slack"`,
		"the kinds: telegram, ntfy",
	} {
		if code != 1 || !strings.Contains(stdout, want) {
			t.Errorf("clai lint: exit %d, want 1 and %q\n%s%s", code, want, stdout, stderr)
		}
	}
}
