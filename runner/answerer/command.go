package answerer

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

// maxStderr is how much of a command's stderr its error quotes.
const maxStderr = 512

// Command is a model reached through a program: the request's JSON on its
// stdin, the reply's JSON on its stdout.
type Command struct {
	Argv []string
}

// Name is the program's base name.
func (c *Command) Name() string { return "command " + filepath.Base(c.Argv[0]) }

// Ask runs the program until it exits or ctx ends; then it is killed with
// every process of its group.
func (c *Command) Ask(ctx context.Context, req Request) (Reply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Reply{}, fmt.Errorf("encode the request: %w", err)
	}
	// A program that writes more than a reply may hold is killed at once.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Stdin = bytes.NewReader(body)
	stdout := &capped{max: MaxReply + 1, full: func() { cancel(errTooLong) }}
	stderr := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Own(cmd)
	// A grandchild that keeps stdout open does not hold Wait past the kill.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case context.Cause(ctx) == errTooLong:
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), errTooLong)
	case ctx.Err() != nil:
		return Reply{}, fmt.Errorf("%s: killed: %w", c.Name(), context.Cause(ctx))
	case err != nil:
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return Reply{}, fmt.Errorf("%s: %w: %s", c.Name(), err, oneLine(msg, maxStderr))
		}
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	r, err := parseReply(stdout.Bytes())
	if err != nil {
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return r, nil
}

// errTooLong is the error of a reply longer than MaxReply.
var errTooLong = fmt.Errorf("the reply is longer than %d bytes", MaxReply)

// capped keeps the first max bytes written to it, and calls full (if set)
// once more is written.
// The buffer is a field, not embedded: an embedded one's ReadFrom would
// let io.Copy fill it past max.
type capped struct {
	buf  bytes.Buffer
	max  int
	full func()
}

// Bytes returns what was kept.
func (c *capped) Bytes() []byte { return c.buf.Bytes() }

// String returns what was kept, as a string.
func (c *capped) String() string { return c.buf.String() }

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	if len(p) > room && c.full != nil {
		c.full()
	}
	return len(p), nil
}
