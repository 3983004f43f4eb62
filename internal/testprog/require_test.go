package testprog_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// requireHelperEnv names the program a run of TestRequireProgramHelper
// asks for; without it that test does nothing.
const requireHelperEnv = "CLAI_TESTPROG_REQUIRE_HELPER"

// TestRequireProgramHelper is run by TestRequireProgramByTier in a process
// of its own, where it may fail or be skipped.
func TestRequireProgramHelper(t *testing.T) {
	name := os.Getenv(requireHelperEnv)
	if name == "" {
		return
	}
	path := testprog.RequireProgram(t, name, name)
	t.Logf("found at %s", path)
}

// TestRequireProgramByTier: an assumed program is found in every tier; a
// missing one fails the test; any other program is skipped without the
// e2e tag, and with it skipped where it is missing, unless the tier is
// required: then it fails. A program of /usr/sbin is found with a PATH that
// leaves that folder out.
func TestRequireProgramByTier(t *testing.T) {
	t.Parallel()
	const absent = "clai-no-such-program"
	for _, tc := range []struct {
		name, program, require, want string
	}{
		{"an assumed program", "sh", "1", "--- PASS"},
		{"an assumed program, missing", "sh", "", "--- FAIL"},
		{"a real program", "tmux", "", map[bool]string{false: "--- SKIP", true: "--- PASS"}[testprog.E2E]},
		{"a real program, missing", absent, "", "--- SKIP"},
		{"a real program, missing, required", absent, "1", map[bool]string{false: "--- SKIP", true: "--- FAIL"}[testprog.E2E]},
		{"a real program in /usr/sbin only", "nologin", "1", map[bool]string{false: "--- SKIP", true: "--- PASS"}[testprog.E2E]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.program == "tmux" && testprog.E2E {
				testprog.RequireProgram(t, "tmux", "tmux")
			}
			if tc.program == "nologin" {
				if _, err := os.Stat("/usr/sbin/nologin"); err != nil {
					t.Skip("this machine has no /usr/sbin/nologin")
				}
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRequireProgramHelper$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), requireHelperEnv+"="+tc.program, testprog.RequireEnv+"="+tc.require)
			if tc.name == "an assumed program, missing" || tc.program == "nologin" {
				cmd.Env = append(cmd.Env, "PATH="+t.TempDir())
			}
			out, _ := cmd.CombinedOutput()
			if !strings.Contains(string(out), tc.want+": TestRequireProgramHelper") {
				t.Errorf("RequireProgram(%q) with %s=%q: want %s, got:\n%s", tc.program, testprog.RequireEnv, tc.require, tc.want, out)
			}
		})
	}
}
