package humanloop

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
	"github.com/clai-sh/clai/runner/humanloop/core"
)

// A Source is a source of questions beside the program's screen: for the
// runs that are its, it follows questions the program asks some other way
// (Claude Code's own AskUserQuestion calls, for one). A new source is one
// value of this type, given in Options.Sources.
type Source struct {
	// Name names the source, for messages.
	Name string
	// Open returns the runner option that follows the run's questions, or
	// false when the run is none of the source's.
	Open func(SourceRun) (runner.Option, bool)
}

// SourceRun is what a Source is told of the run it may follow.
type SourceRun struct {
	Playbook *playbooks.Playbook
	// Command is the program's command line as it runs.
	Command []string
	// Getenv reads the run's environment.
	Getenv func(string) string
	// Start is when the run starts.
	Start time.Time
	// Notices is where the run warns a person.
	Notices io.Writer
}

// DefaultSources are the sources of questions clai run follows: Claude
// Code's.
func DefaultSources() []Source { return []Source{ClaudeCode()} }

// ClaudeCode follows Claude Code's AskUserQuestion calls, for a playbook
// that is the claude-code preset or extends it. Its transcripts are in
// $CLAUDE_CONFIG_DIR, else ~/.claude; the session is the one Claude Code's
// arguments name, else the newest changed since the run started.
func ClaudeCode() Source { return Source{Name: "Claude Code's own questions", Open: claudeQuestions} }

func claudeQuestions(r SourceRun) (runner.Option, bool) {
	pb := r.Playbook
	if pb.Name != core.ClaudeCodePreset && pb.Extends != core.ClaudeCodePreset {
		return nil, false
	}
	dir := r.Getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := r.Getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".claude")
	}
	return runner.WithQuestions(askuser.Source(askuser.Config{
		ConfigDir: dir,
		Session:   claudeSession(r.Command),
		Since:     r.Start,
		Warn: func(err error) {
			fmt.Fprintf(r.Notices, "clai: warning: Claude Code's own questions are not followed: %v\n", err)
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
