package answerer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/clai-sh/clai/internal/procgroup"
	"github.com/clai-sh/clai/runner/ask"
)

// maxStderr is how much of a command's stderr its error quotes.
const maxStderr = 512

// maxNamePart bounds each part of a command model's name, in characters.
const maxNamePart = 40

// Command is a model reached through a program: the request's JSON on its
// stdin, the reply's JSON on its stdout.
type Command struct {
	Argv []string
	// Env is the program's environment; nil gives it clai's own (Open gives
	// it a scrubbed one, see internal/childenv).
	Env []string
	// Secrets are values masked wherever the program's reply is quoted.
	Secrets []string
}

// Name names the program as a person would recognise it: "command", the
// program's base name and, when there is one, its first argument that is
// not a flag, by its base name: a script ("command python3 ask.py"), a
// subcommand or a model ("command llm gpt-4o"). An argument after a flag
// whose name speaks of a key, a token, a secret, a password or
// credentials is never shown; nor is any of Secrets. Each part is one line
// of at most 40 characters.
func (c *Command) Name() string {
	name := "command " + ask.OneLine(filepath.Base(c.Argv[0]), maxNamePart)
	if arg := firstOperand(c.Argv[1:]); arg != "" {
		name += " " + ask.OneLine(filepath.Base(arg), maxNamePart)
	}
	return masked(name, c.Secrets)
}

// secretFlag reports whether flag's value may be a credential: its name
// speaks of a key, a token, a secret, a password, authentication or
// credentials.
func secretFlag(flag string) bool {
	flag = strings.ToLower(flag)
	for _, word := range []string{"key", "token", "secret", "pass", "auth", "cred"} {
		if strings.Contains(flag, word) {
			return true
		}
	}
	return false
}

// firstOperand returns the first of args that is not a flag nor the value
// of a flag that may hold a credential; "" when there is none.
func firstOperand(args []string) string {
	for i, a := range args {
		switch {
		case a == "" || strings.HasPrefix(a, "-"):
		case i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") && secretFlag(args[i-1]):
		default:
			return a
		}
	}
	return ""
}

// Ask runs the program until it exits or ctx ends; then it is killed with
// every process of its group.
func (c *Command) Ask(ctx context.Context, req Request) (Reply, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Reply{}, fmt.Errorf("encode the request: %w", err)
	}
	// A program that writes more than a reply may hold is killed at once.
	stdout, stderr, err := procgroup.Run(ctx, c.Argv, c.Env, body, MaxReply+1, maxStderr)
	switch {
	case errors.Is(err, procgroup.ErrTooLong):
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), errTooLong)
	case ctx.Err() != nil:
		return Reply{}, fmt.Errorf("%s: killed: %w", c.Name(), context.Cause(ctx))
	case err != nil:
		if msg := strings.TrimSpace(stderr); msg != "" {
			return Reply{}, fmt.Errorf("%s: %w: %s", c.Name(), err, ask.OneLine(masked(msg, c.Secrets), maxStderr))
		}
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	r, err := parseReply(stdout)
	if err != nil {
		return Reply{}, fmt.Errorf("%s: %w", c.Name(), withExcerpt(err, stdout, c.Secrets))
	}
	return r, nil
}

// errTooLong is the error of a reply longer than MaxReply.
var errTooLong = fmt.Errorf("the reply is longer than %d bytes", MaxReply)
