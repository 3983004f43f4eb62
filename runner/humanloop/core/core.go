// Package core holds what every build of clai has of a run's human loop,
// the lean clai included (docs/performance.md#two-binaries): the user
// config, the session server that clai sessions, clai answer and the
// dashboard reach, and Alone, which says whether a run needs nothing more
// than them. The answerer, learned answers, notifications and channels are
// package humanloop's, which links them.
package core

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner"
)

// ClaudeCodePreset is the preset whose runs follow Claude Code's own
// questions, and every playbook that extends it.
const ClaudeCodePreset = "claude-code"

// LoadConfig loads the user config file of environ; an empty one when
// environ names no place for it. A config file that does not load is a
// *runner.SetupError (the run is refused before anything starts).
func LoadConfig(environ []string) (*playbooks.Config, error) {
	path := playbooks.ConfigPath(environ)
	if path == "" {
		return &playbooks.Config{}, nil
	}
	cfg, err := files.LoadConfig(path)
	if err != nil {
		var list interface{ Count() (int, int) }
		if errors.As(err, &list) {
			return nil, &runner.SetupError{Err: fmt.Errorf("%w\nthe user config file %s does not load", err, path)}
		}
		return nil, &runner.SetupError{Err: err}
	}
	return cfg, nil
}

// WarnIfExposed says on w that cfg's file, where tokens are kept, may be
// read by other users.
func WarnIfExposed(w io.Writer, cfg *playbooks.Config) {
	if cfg.Path == "" {
		return
	}
	info, err := os.Stat(cfg.Path)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return
	}
	fmt.Fprintf(w, "clai: warning: %s may be read by other users (mode %04o) and holds tokens: chmod 600 %s\n", cfg.Path, info.Mode().Perm(), cfg.Path)
}

// Situation is how a run starts, as far as Alone must know it.
type Situation struct {
	// Terminal is a run with a person at its terminal, whose answers
	// there are learned.
	Terminal bool
	// Remote is a headless run that waits at a question for an answer
	// from elsewhere.
	Remote bool
	// Hub says whether the per-user hub answers, which a run links to
	// when it may use channels; nil when the run owns its channels.
	Hub func() bool
}

// Alone reports whether a run of pb with the user config cfg needs none of
// the human loop's parts besides the session server: no answerer, no
// learned answers, no notification or channel, no question source. That
// is a headless run that waits for no answer, of a playbook with no
// answerer, notify:, suggest: or channels it uses, that is not Claude
// Code's, where the config declares no answerer, channel or target and no
// hub answers. Where it reports false, package humanloop may still open
// nothing; it never reports true of a run that would open a part.
func Alone(pb *playbooks.Playbook, cfg *playbooks.Config, s Situation) bool {
	switch {
	case s.Terminal, s.Remote:
		return false
	case pb.Answerer != nil, cfg.Answerer != nil, len(pb.Notify) > 0, pb.Suggest != nil:
		return false
	case pb.Name == ClaudeCodePreset, pb.Extends == ClaudeCodePreset:
		return false
	case pb.Channels != nil && len(pb.Channels) == 0:
		// The playbook uses none of the config's channels and targets.
		return true
	case pb.Channels != nil, len(cfg.Channels) > 0, len(cfg.Notify) > 0:
		return false
	}
	return s.Hub == nil || !s.Hub()
}
