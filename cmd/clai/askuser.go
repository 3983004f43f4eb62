package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/askuser"
)

// claudeCodePreset is the preset whose runs follow Claude Code's own
// questions (docs/presets.md).
const claudeCodePreset = "claude-code"

// claudeQuestions returns the option that follows Claude Code's
// AskUserQuestion calls, for a playbook that is the claude-code preset or
// extends it; none otherwise. Its transcripts are in $CLAUDE_CONFIG_DIR, else
// ~/.claude, of the environment env; the session is the one Claude Code's
// arguments argv name, else the newest changed since start.
func claudeQuestions(pb *playbooks.Playbook, argv []string, env func(string) string, start time.Time, stderr io.Writer) (runner.Option, bool) {
	if pb.Name != claudeCodePreset && pb.Extends != claudeCodePreset {
		return nil, false
	}
	dir := env("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := env("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".claude")
	}
	return runner.WithQuestions(askuser.Source(askuser.Config{
		ConfigDir: dir,
		Session:   claudeSession(argv),
		Since:     start,
		Warn: func(err error) {
			fmt.Fprintf(stderr, "clai: warning: Claude Code's own questions are not followed: %v\n", err)
		},
	})), true
}

// claudeSession returns the session Claude Code's arguments name
// (--session-id ID, --resume ID, -r ID, or with "="), or "".
func claudeSession(argv []string) string {
	for i, arg := range argv {
		for _, flag := range []string{"--session-id", "--resume", "-r"} {
			if value, ok := strings.CutPrefix(arg, flag+"="); ok {
				return value
			}
			if arg == flag && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				return argv[i+1]
			}
		}
	}
	return ""
}
