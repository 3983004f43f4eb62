package testprog

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RequireEnv is the variable that makes a missing real program fail the
// e2e tier instead of skipping its test: .ci/run sets it to 1, so a missing
// program cannot pass there for a passing test.
const RequireEnv = "CLAI_E2E_REQUIRE"

// assumed are the programs make test may count on beside Go: git and a
// POSIX shell (sh, bash), and make, which runs the tiers.
var assumed = map[string]bool{"git": true, "sh": true, "bash": true, "make": true}

// Required reports whether the e2e tier must have every real program it
// tests with: RequireEnv is set to 1.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing ends a test of the e2e tier that lacks what it needs (a program,
// the npm registry): it fails the test when Required, and skips it on a
// machine without RequireEnv. The message says what is missing.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s, and %s=1 requires it", msg, RequireEnv)
	}
	t.Skipf("%s (%s=1 makes this a failure)", msg, RequireEnv)
}

// RequireProgram returns the path of the installed program name, which the
// Debian package pkg provides. A program not on PATH is looked for in the
// sbin folders too (sshd is /usr/sbin/sshd, which a normal user's PATH
// leaves out).
//
// git, sh, bash and make are assumed in every tier: where one is missing the
// test fails. Any other program belongs to the e2e tier (go test -tags e2e,
// make e2e): without the tag the test is skipped wherever it runs, so that
// make test is the same on every machine; with it, a missing program is
// Missing, a failure where RequireEnv is set (.ci/run sets it and installs
// the program).
func RequireProgram(t testing.TB, name, pkg string) string {
	t.Helper()
	if assumed[name] {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s is not installed: every tier assumes it (the %s package)", name, pkg)
		}
		return path
	}
	if !E2E {
		t.Skipf("%s is a real program of the e2e tier: make e2e runs this test with it", name)
	}
	path, err := lookPath(name)
	if err != nil {
		Missing(t, "%s is not installed (the %s package; .ci/run installs it)", name, pkg)
	}
	return path
}

// lookPath finds the program name in PATH, and then in the folders of system
// programs that a normal user's PATH may leave out.
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err == nil {
		return path, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
		if p, serr := exec.LookPath(filepath.Join(dir, name)); serr == nil {
			return p, nil
		}
	}
	return "", err
}
