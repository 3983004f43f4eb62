package suggesteval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/google/shlex"
)

// World is the repositories of a history on disk, kept as its commands
// leave them: an editor changes the file it opens, and git adds, commits
// and makes branches for real, so that what a predictor reads of a work
// tree (the files changed, the branch) is what a user's would show.
type World struct {
	root string
}

// NewWorld makes the repositories of a history under root: each a git
// repository with an origin, its project's files committed.
func NewWorld(ctx context.Context, root string) (*World, error) {
	w := &World{root: root}
	for _, p := range projects {
		dir := filepath.Join(root, p.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		files := append([]string{"Makefile"}, p.files...)
		for _, f := range files {
			if err := edit(filepath.Join(dir, f)); err != nil {
				return nil, err
			}
		}
		for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://example.com/team/" + p.name + ".git"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
			if err := git(ctx, dir, args...); err != nil {
				return nil, err
			}
		}
	}
	return w, nil
}

// Apply does to the work tree what step did: an editor's file gets a
// line, and git add, commit and checkout -b run.
func (w *World) Apply(ctx context.Context, s Step) error {
	if s.Repo == "" || s.Exit != 0 {
		return nil
	}
	words, err := shlex.Split(s.Cmd)
	if err != nil || len(words) < 2 {
		return nil
	}
	switch {
	case words[0] == "vim":
		return edit(filepath.Join(s.Cwd, words[1]))
	case words[0] == "git" && (words[1] == "add" || words[1] == "commit" || words[1] == "checkout"):
		err := git(ctx, s.Cwd, words[1:]...)
		if err != nil && words[1] == "commit" && (strings.Contains(err.Error(), "nothing to commit") || strings.Contains(err.Error(), "no changes added")) {
			return nil // nothing staged: git says so, as a user's would
		}
		return err
	}
	return nil
}

// edit adds a line to the file at path, making it and its folder.
func edit(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString("// a change\n")
	return errors.Join(err, f.Close())
}

// git runs git in dir with a fixed identity and no user configuration.
func git(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=eval", "-c", "user.email=eval@example.com", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(string(out)))
	}
	return nil
}
