package pty

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// lookPath finds name the way execvp does, but in the PATH of env (the
// program's environment) rather than clai's. Relative PATH entries are
// ignored, as exec.LookPath refuses them.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil // relative to Options.Dir, as exec.Cmd.Path
	}
	path, ok := "", false
	if env == nil {
		path, ok = os.LookupEnv("PATH")
	} else {
		for _, kv := range env {
			if v, found := strings.CutPrefix(kv, "PATH="); found {
				path, ok = v, true // the last one wins, as in exec.Cmd
			}
		}
	}
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		file := filepath.Join(dir, name)
		if st, err := os.Stat(file); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
			return file, nil
		}
	}
	return "", exec.ErrNotFound
}
