package runner_test

import (
	"path/filepath"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/playtest"
)

// A playbook's test names the project readOnly checks paths against, and sets
// the variables of an opt-in; a relative project is taken from the
// playbook's folder.
func TestPlaybookTestsHaveAProjectAndVars(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: commands
spawn: {command: [agent]}
vars: {run_project_code: "no"}
rules:
  - name: approve-read-only
    match: {regex: 'Run (?P<cmd>[^\n]+)\?'}
    when: readOnly(match.cmd)
    line: "y"
    cooldown: 1s
  - name: approve-project-code
    match: {regex: 'Run (?P<cmd>[^\n]+)\?'}
    when: vars.run_project_code == "yes" and projectCode(match.cmd)
    line: "y"
    cooldown: 1s
tests:
  - name: in the project
    project: /nowhere/proj
    output: "Run ls -la /nowhere/proj/src?"
    expect: {sent: "y\r", fired: [approve-read-only]}
  - name: outside the project
    output: "Run ls -la /nowhere/proj/src?"
    expect: {sent: ""}
  - name: relative to the playbook
    project: proj
    output: "set below"
    expect: {sent: "y\r", fired: [approve-read-only]}
  - name: project code, by default
    output: "Run go test ./...?"
    expect: {sent: ""}
  - name: project code, asked for
    vars: {run_project_code: "yes"}
    output: "Run go test ./...?"
    expect: {sent: "y\r", fired: [approve-project-code]}
`)
	// The playbook is in a folder of its own, known only once it is written.
	pb.Tests[2].Output = "Run ls -la " + filepath.Join(filepath.Dir(pb.Path), "proj", "src") + "?"
	for _, r := range playtest.RunTests(t.Context(), pb) {
		if !r.Passed() {
			t.Errorf("%s: %v", r.Test.Name, r.Failures)
		}
	}
}

// A run's project is the folder its program works in: spawn.dir here.
func TestRunProjectIsTheSpawnDir(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	dir := t.TempDir()
	pb := playbook(t, `
version: 1
name: project
spawn: {command: [%q, -q, "Run ls -la %s/src? "], dir: %q}
settings: {min_send_interval: 0s}
rules:
  - name: approve-read-only
    match: {regex: 'Run (?P<cmd>[^\n]+)\? '}
    when: readOnly(match.cmd)
    line: "y"
    limit: 1
`, prompter, dir, dir)
	rep := run(t, pb)
	wantOutcome(t, rep, engine.Done, 0)
	if rep.Rules["approve-read-only"] != 1 {
		t.Fatalf("approve-read-only fired %d times, want once", rep.Rules["approve-read-only"])
	}
}
