package answerer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

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
	stdout, stderr, err := procgroup.Run(ctx, c.Argv, body, MaxReply+1, maxStderr)
	switch {
	case errors.Is(err, procgroup.ErrTooLong):
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), errTooLong)
	case ctx.Err() != nil:
		return Reply{}, fmt.Errorf("%s: killed: %w", c.Name(), context.Cause(ctx))
	case err != nil:
		if msg := strings.TrimSpace(stderr); msg != "" {
			return Reply{}, fmt.Errorf("%s: %w: %s", c.Name(), err, oneLine(msg, maxStderr))
		}
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	r, err := parseReply(stdout)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return r, nil
}

// errTooLong is the error of a reply longer than MaxReply.
var errTooLong = fmt.Errorf("the reply is longer than %d bytes", MaxReply)
