package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/procgroup"
)

// maxStderr is how much of a command target's stderr its error quotes.
const maxStderr = 512

// commandTarget runs a program with the notification's JSON on its stdin.
type commandTarget struct {
	argv []string
}

func (t *commandTarget) Name() string { return "command " + filepath.Base(t.argv[0]) }

// Deliver runs the program until it exits or ctx ends; then it is killed
// with every process of its group.
func (t *commandTarget) Deliver(ctx context.Context, n *Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode the notification: %w", err)
	}
	cmd := exec.CommandContext(ctx, t.argv[0], t.argv[1:]...)
	cmd.Stdin = bytes.NewReader(body)
	stderr := &capped{max: maxStderr}
	cmd.Stderr = stderr
	procgroup.Own(cmd)
	// A grandchild that keeps stderr open does not hold Wait past the kill.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("%s: killed: %w", t.Name(), context.Cause(ctx))
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			return fmt.Errorf("%s: %w: %s", t.Name(), err, oneLine(msg))
		}
		return fmt.Errorf("%s: %w", t.Name(), err)
	}
	return nil
}

// capped keeps the first max bytes written to it. The buffer is a field, not
// embedded: an embedded bytes.Buffer's ReadFrom would let io.Copy (as exec
// copies a command's stderr) around Write and its bound.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
