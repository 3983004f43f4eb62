package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// installPair copies the built clai and clai-hook into one folder whose name
// needs quoting, as make build and go install put them side by side.
func installPair(t *testing.T) (clai, hook string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), `it's "a" $bin`)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for src, name := range map[string]string{
		testprog.BuildCommand(t, "./cmd/clai"):      "clai",
		testprog.BuildCommand(t, "./cmd/clai-hook"): "clai-hook",
	} {
		testprog.Place(t, src, filepath.Join(dir, name))
	}
	return filepath.Join(dir, "clai"), filepath.Join(dir, "clai-hook")
}

// TestInitFindsTheHookNextToClai: the hooks call the clai-hook beside the
// clai that printed them, by its absolute path quoted for each shell, and
// each shell loads them.
func TestInitFindsTheHookNextToClai(t *testing.T) {
	t.Parallel()
	clai, hook := installPair(t)
	for _, c := range []struct{ shell, quoted, load string }{
		{"bash", `'` + strings.ReplaceAll(hook, `'`, `'\''`) + `'`, `eval "$(CLAI init bash)"; [[ ${PROMPT_COMMAND[*]} == *_clai_hook_precmd* ]] && echo installed`},
		{"zsh", `'` + strings.ReplaceAll(hook, `'`, `'\''`) + `'`, `eval "$(CLAI init zsh)"; (( ${precmd_functions[(Ie)_clai_hook_precmd]} )) && echo installed`},
		{"fish", `'` + strings.ReplaceAll(hook, `'`, `\'`) + `'`, `CLAI init fish | source; functions -q _clai_hook_postexec; and echo installed`},
	} {
		t.Run(c.shell, func(t *testing.T) {
			out, err := exec.Command(clai, "init", c.shell).Output()
			if err != nil {
				t.Fatalf("clai init %s: %v", c.shell, err)
			}
			if !strings.Contains(string(out), c.quoted) {
				t.Errorf("clai init %s does not call %s:\n%s", c.shell, c.quoted, out)
			}
			sh := testprog.RequireProgram(t, c.shell, c.shell)
			script := strings.ReplaceAll(c.load, "CLAI", "'"+strings.ReplaceAll(clai, `'`, `'\''`)+"'")
			if c.shell == "fish" {
				script = strings.ReplaceAll(c.load, "CLAI", "'"+strings.ReplaceAll(clai, `'`, `\'`)+"'")
			}
			cmd := exec.Command(sh, "-c", script)
			cmd.Env = append(os.Environ(), "CLAI_HOOK_NONINTERACTIVE=1", "CLAI_DAEMON_SOCKET="+filepath.Join(t.TempDir(), "none.sock"))
			got, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(got), "installed") {
				t.Errorf("%s loading the hooks: %v\n%s", c.shell, err, got)
			}
		})
	}
}

func TestInitErrors(t *testing.T) {
	t.Parallel()
	clai := testprog.BuildCommand(t, "./cmd/clai")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"init"}, 2, "clai init wants one shell: bash, zsh, fish"},
		{[]string{"init", "tcsh"}, 2, "clai init wants one shell"},
		{[]string{"init", "bash", "zsh"}, 2, "clai init wants one shell"},
		// Neither beside this clai nor on PATH.
		{[]string{"init", "bash"}, 1, "clai-hook is in neither"},
	} {
		cmd := exec.Command(clai, c.args...)
		cmd.Env = []string{"PATH=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != c.code || !strings.Contains(string(out), c.says) {
			t.Errorf("clai %q: %v, %s; want exit %d saying %q", c.args, err, out, c.code, c.says)
		}
	}
}
