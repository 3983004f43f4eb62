//go:build e2e

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
)

// installFromNPM installs version of the npm package pkg into a temporary
// prefix and returns the path of its command bin, once bin --version printed
// a line that holds version. When npm is missing, the registry cannot be
// reached or the package does not install or start, the test is
// testprog.Missing: skipped, or failed where .ci/run requires the e2e tier.
func installFromNPM(t *testing.T, pkg, version, bin string) string {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		testprog.Missing(t, format, args...)
	}
	npm := testprog.RequireProgram(t, "npm", "npm")
	spec := pkg + "@" + version
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, npm, "view", spec, "version").Output(); err != nil ||
		strings.TrimSpace(string(out)) != version {
		skip("npm view %s: %q, %v (registry unreachable?)", spec, out, err)
	}
	prefix := t.TempDir()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", spec)
	if out, err := install.CombinedOutput(); err != nil {
		skip("npm install %s: %v\n%s", spec, err, out)
	}
	path := filepath.Join(prefix, "node_modules", ".bin", bin)
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), version) {
		skip("%s --version: %v: %s (did npm skip the package's install script?)", path, err, out)
	}
	return path
}
