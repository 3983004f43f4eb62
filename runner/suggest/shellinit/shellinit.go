// Package shellinit is the code `clai init bash|zsh|fish` prints for a shell's
// rc file: hooks that append each command the shell runs, with its folder,
// exit status and duration, to the shell's spool file, which the suggestion
// daemon reads (see hookproto.Spool). They run clai-hook as the shell starts,
// for its session id and the spool's path, and in zsh and fish as it ends.
package shellinit

import (
	_ "embed"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

var (
	//go:embed clai.bash
	bashScript string
	//go:embed clai.zsh
	zshScript string
	//go:embed clai.fish
	fishScript string
)

// HookName is the name of the hooks' client program.
const HookName = "clai-hook"

// hookMark is where a script names clai-hook.
const hookMark = "@HOOK@"

// shells are the shells there are hooks for.
var shells = []string{"bash", "zsh", "fish"}

// Shells returns the shells there are hooks for.
// A new copy each call: callers may change it.
func Shells() []string { return slices.Clone(shells) }

// Script is the hook code for shell that runs the clai-hook at hook, an
// absolute path.
func Script(shell, hook string) (string, error) {
	if !filepath.IsAbs(hook) {
		return "", fmt.Errorf("clai-hook at %q: want an absolute path", hook)
	}
	switch shell {
	case "bash":
		return strings.ReplaceAll(bashScript, hookMark, quotePOSIX(hook)), nil
	case "zsh":
		return strings.ReplaceAll(zshScript, hookMark, quotePOSIX(hook)), nil
	case "fish":
		return strings.ReplaceAll(fishScript, hookMark, quoteFish(hook)), nil
	default:
		return "", fmt.Errorf("no hooks for shell %q: want one of %s", shell, strings.Join(shells, ", "))
	}
}

// IsShell reports whether there are hooks for shell.
func IsShell(shell string) bool { return slices.Contains(shells, shell) }

// FindHook is the clai-hook the hooks run: the one in the folder of the clai
// at exe (a link followed), else the one on PATH, as an absolute path.
func FindHook(exe string) (string, error) {
	var tried []string
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if exe != "" {
		next := filepath.Join(filepath.Dir(exe), HookName)
		if isProgram(next) {
			return filepath.Abs(next)
		}
		tried = append(tried, filepath.Dir(exe))
	}
	if found, err := exec.LookPath(HookName); err == nil {
		return filepath.Abs(found)
	}
	tried = append(tried, "PATH")
	return "", fmt.Errorf("%s is in neither %s: it is built with clai (go install ./cmd/... or make build)", HookName, strings.Join(tried, " nor "))
}

// isProgram reports whether path is a file anyone may run.
func isProgram(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// quotePOSIX quotes s for bash and zsh: in single quotes, each single quote
// written as '\”.
func quotePOSIX(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteFish quotes s for fish: in single quotes, where a backslash and a
// single quote are escaped with a backslash.
func quoteFish(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
