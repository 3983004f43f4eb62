package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/clai-sh/clai/playbooks"
)

// Spawn is a playbook's spawn section resolved for one run: variables expanded,
// paths made absolute, the environment complete.
type Spawn struct {
	Argv []string
	Env  []string
	Dir  string
	// Rows and Cols are zero when the playbook leaves the size to the terminal.
	Rows, Cols uint16
	// TmuxTarget and TmuxSession are set when the program is driven through tmux;
	// a tmux session gets the playbook's own environment, PlaybookEnv.
	TmuxTarget, TmuxSession string
	PlaybookEnv             []string
}

// resolveSpawn renders the {{ }} templates of every spawn field over vars (the
// playbook's variables after --var) and environ ("KEY=value" entries), expands
// ${VAR} and ${VAR:-default} from environ in the text around them, appends extra
// arguments, and resolves a relative dir against the playbook's folder. What a
// template yields is not expanded again: a ${...} in a variable's value stays as
// it is.
func resolveSpawn(pb *playbooks.Playbook, environ []string, vars map[string]string, extra []string) (Spawn, error) {
	lookup := envLookup(environ)
	environMap := envMap(environ)
	var errs []error
	sp := pb.Spawn
	expand := func(field, s string) string {
		out, err := sp.Render(field, s, vars, environMap, func(text string) (string, error) { return playbooks.ExpandVars(text, lookup) })
		if err != nil {
			errs = append(errs, fmt.Errorf("spawn.%s: %w", field, err))
		}
		return out
	}
	var s Spawn
	if t := sp.Tmux; t != nil {
		s.TmuxTarget, s.TmuxSession = expand("tmux.target", t.Target), expand("tmux.session", t.Session)
		if err := playbooks.TmuxSessionName(s.TmuxSession); err != nil {
			errs = append(errs, fmt.Errorf("spawn.tmux.session: %w", err))
		}
	}
	switch {
	case s.TmuxTarget != "":
		// The pane already runs its program.
	case len(sp.Command) > 0:
		for i, a := range sp.Command {
			s.Argv = append(s.Argv, expand(fmt.Sprintf("command[%d]", i), a))
		}
		s.Argv = append(s.Argv, extra...)
	case sp.Shell != "":
		shell := lookup("SHELL")
		if shell == "" {
			shell = "/bin/sh"
		}
		// Extra arguments become $1, $2 … of the command line.
		s.Argv = append([]string{shell, "-c", expand("shell", sp.Shell), "clai"}, extra...)
	default:
		return Spawn{}, errors.New("spawn has no command")
	}
	env := append([]string(nil), environ...)
	if lookup("TERM") == "" {
		env = append(env, "TERM=xterm-256color")
	}
	for _, v := range sp.Env {
		kv := v.Name + "=" + expand("env."+v.Name, v.Value)
		env = append(env, kv)
		s.PlaybookEnv = append(s.PlaybookEnv, kv)
	}
	s.Env = env
	if sp.Dir != "" {
		s.Dir = pb.ResolvePath(expand("dir", sp.Dir))
	}
	if sp.Size != nil {
		s.Rows, s.Cols = uint16(sp.Size.Rows), uint16(sp.Size.Cols)
	}
	if len(errs) > 0 {
		return Spawn{}, errors.Join(errs...)
	}
	return s, nil
}

// commandNotFound explains a program that cannot be found from where it was
// looked for: a relative path (./install.sh) is taken from spawn.dir, or from
// clai's current directory without one, and a bare name is looked for in
// PATH only, even where a file of that name is in the directory. It returns
// nil when the program is there, or when the directory itself is missing,
// which the start reports.
func commandNotFound(s Spawn, startErr error) error {
	if len(s.Argv) == 0 {
		return nil
	}
	name := s.Argv[0]
	if filepath.IsAbs(name) {
		return nil
	}
	dir, where := s.Dir, "spawn.dir, "+s.Dir
	if dir == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil
		}
		dir, where = cwd, "the current directory, "+cwd+" (spawn.dir sets another)"
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	full := filepath.Join(dir, name)
	_, err := os.Stat(full)
	switch {
	case strings.Contains(name, "/") && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("start %q: no such file %s: a relative command is taken from %s", name, full, where)
	case !strings.Contains(name, "/") && err == nil && errors.Is(startErr, exec.ErrNotFound):
		return fmt.Errorf("%w; %s is not looked for in %s: write ./%s to run it", startErr, name, where, name)
	}
	return nil
}

// envLookup returns a lookup function over "KEY=value" entries; the last entry wins.
func envLookup(environ []string) func(string) string {
	m := envMap(environ)
	return func(k string) string { return m[k] }
}

// envMap turns "KEY=value" entries into a map; the last entry wins.
func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
