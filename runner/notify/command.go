package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clai-sh/clai/internal/procgroup"
)

// maxStderr is how much of a command target's stderr its error quotes.
const maxStderr = 512

// commandTarget runs a program with the notification's JSON on its stdin.
type commandTarget struct {
	argv []string
	// env is the program's environment (see childEnviron).
	env []string
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
