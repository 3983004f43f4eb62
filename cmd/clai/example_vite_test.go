//go:build e2e

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// createViteVersion is the create-vite release examples/create-vite.yaml pins.
const createViteVersion = "9.3.0"

// TestCreateViteExample runs examples/create-vite.yaml for real: the built clai,
// headless, spawns create-vite from npm and answers its menus with choose alone; the
// project must be on disk afterwards. Where npm, a recent enough Node.js or the npm
// registry is missing, it is testprog.Missing.
func TestCreateViteExample(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs npm and the npm registry; skipped with -short")
	}
	testprog.RequireProgram(t, "npm", "npm")
	testprog.RequireProgram(t, "npx", "npm")
	testprog.RequireProgram(t, "node", "nodejs")
	if v, ok := nodeSupportsCreateVite(t); !ok {
		testprog.Missing(t, "Node.js %s is too old for create-vite %s (needs ^20.19.0 or >=22.12.0)", v, createViteVersion)
	}

	work := t.TempDir()
	// npm's cache lives with the test, so nothing depends on, or is left in, the
	// cache of the person or machine running it.
	env := append(os.Environ(),
		"npm_config_cache="+filepath.Join(work, "npm-cache"),
		"npm_config_update_notifier=false",
		"TMPDIR="+work, // the example scaffolds into ${TMPDIR:-/tmp}
	)

	// A cheap probe: one registry request, not retried, with a deadline, so a
	// machine without the registry skips in seconds instead of failing.
	probe, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(probe, "npm", "view", "--fetch-retries=0", "create-vite@"+createViteVersion, "version")
	cmd.Env, cmd.Dir = env, work
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != createViteVersion {
		testprog.Missing(t, "the npm registry is not reachable: npm view create-vite@%s version: %v\n%s", createViteVersion, err, firstLines(string(out), 4))
	}

	example, err := filepath.Abs("../../examples/create-vite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const project = "clai-vite-test"
	report := filepath.Join(work, "x.json")
	logFile := filepath.Join(work, "run.log")
	ctx, cancelRun := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancelRun()
	run := exec.CommandContext(ctx, testprog.BuildCommand(t, "./cmd/clai"),
		"run", "-q", "--report", report, "--log", logFile, "--var", "project="+project, example)
	run.Env, run.Dir = env, work
	out, err := run.CombinedOutput()
	if err != nil {
		logText, _ := os.ReadFile(logFile)
		t.Fatalf("clai run: %v\n%s\nlog:\n%s", err, out, lastLines(string(logText), 30))
	}

	var rep struct {
		Outcome  string `json:"outcome"`
		ExitCode int    `json:"exit_code"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	if rep.Outcome != "done" || rep.ExitCode != 0 {
		t.Fatalf("report: outcome %q, exit code %d", rep.Outcome, rep.ExitCode)
	}

	dir := filepath.Join(work, project)
	var pkg struct {
		Name    string            `json:"name"`
		Scripts map[string]string `json:"scripts"`
	}
	data, err = os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatalf("no project was scaffolded: %v", err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if pkg.Name != project {
		t.Errorf("package.json name %q, want %q", pkg.Name, project)
	}
	// React with TypeScript, and Oxlint rather than ESLint.
	for _, f := range []string{"src/main.tsx", "src/App.tsx", "tsconfig.json", ".oxlintrc.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the chosen template's %s is missing: %v", f, err)
		}
	}
	if pkg.Scripts["lint"] != "oxlint" {
		t.Errorf("lint script %q, want oxlint", pkg.Scripts["lint"])
	}
	// "Install with npm and start now?" was answered No.
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dependencies were installed (node_modules: %v)", err)
	}
}

// nodeSupportsCreateVite reports the installed Node.js version and whether
// create-vite accepts it (^20.19.0 || >=22.12.0).
func nodeSupportsCreateVite(t *testing.T) (string, bool) {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "node", "--version").Output()
	if err != nil {
		return fmt.Sprintf("(node --version: %v)", err), false
	}
	v := strings.TrimSpace(string(out))
	var major, minor int
	if _, err := fmt.Sscanf(v, "v%d.%d", &major, &minor); err != nil {
		return v, false
	}
	return v, major == 20 && minor >= 19 || major == 22 && minor >= 12 || major > 22
}

// firstLines returns the first n lines of text.
func firstLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// lastLines returns the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
