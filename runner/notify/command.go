package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clai-sh/clai/internal/childenv"
	"github.com/clai-sh/clai/internal/procgroup"
	"github.com/clai-sh/clai/playbooks"
)

// maxStderr is how much of a command target's stderr its error quotes.
const maxStderr = 512

// commandTarget runs a program with the notification's JSON on its stdin.
type commandTarget struct {
	argv []string
	// env is the program's environment (see openCommand).
	env []string
}

// openCommand makes the command target of spec: its program is given the
// environment without the variables behind secrets, and those whose names
// look like credentials', but for those spec's env: names.
func openCommand(spec *playbooks.Notify, env Environment) *commandTarget {
	return &commandTarget{argv: spec.Command, env: childenv.Scrub(env.Environ, env.Secrets, spec.PassEnv)}
}

func (t *commandTarget) Name() string { return "command " + filepath.Base(t.argv[0]) }

// Deliver runs the program until it exits or ctx ends; then it is killed
// with every process of its group.
func (t *commandTarget) Deliver(ctx context.Context, n *Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode the notification: %w", err)
	}
	_, stderr, err := procgroup.Run(ctx, t.argv, t.env, body, 0, maxStderr)
	if ctx.Err() != nil {
		return fmt.Errorf("%s: killed: %w", t.Name(), context.Cause(ctx))
	}
	if err != nil {
		msg := strings.TrimSpace(stderr)
		if msg != "" {
			return fmt.Errorf("%s: %w: %s", t.Name(), err, oneLine(msg))
		}
		return fmt.Errorf("%s: %w", t.Name(), err)
	}
	return nil
}
