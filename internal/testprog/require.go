package testprog

import (
	"os"
	"os/exec"
	"testing"
)

// RequireProgram returns the path of the installed program name, which the Debian
// package pkg provides. Where it is missing the test is skipped, except in CI
// (CI=true), which must install it (.ci/run does): there the test fails, so that
// a missing program cannot pass for a passing test.
func RequireProgram(t testing.TB, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed, and CI must test with it: install the %s package (.ci/run does)", name, pkg)
	}
	t.Skipf("%s is not installed (the %s package; .ci/run installs it)", name, pkg)
	return ""
}
