//go:build unix

package procgroup

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"time"
)

// ErrTooLong is the cause of a run ended because the program wrote more to
// its stdout than Run keeps.
var ErrTooLong = errors.New("the program wrote more than it may")

// Run runs argv with stdin as its input and env as its environment (nil:
// this process's own, as exec gives it), in a process group of its own that
// is killed whole when ctx ends (Own). It keeps at most maxOut bytes of the
// program's stdout, and ends it at once, with ErrTooLong as ctx's cause,
// when it writes more; maxOut 0 discards stdout. It keeps the first maxErr
// bytes of its stderr. err is the program's (an *exec.ExitError), or ctx's
// cause once ctx ended.
func Run(ctx context.Context, argv, env []string, stdin []byte, maxOut, maxErr int) (stdout []byte, stderr string, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = env
	out := &capped{max: maxOut, full: func() { cancel(ErrTooLong) }}
	if maxOut > 0 {
		cmd.Stdout = out
	}
	errs := &capped{max: maxErr}
	cmd.Stderr = errs
	Own(cmd)
	// A grandchild that keeps stdout or stderr open does not hold Wait past
	// the kill.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return out.buf.Bytes(), errs.buf.String(), err
}

// capped keeps the first max bytes written to it, and calls full (if set)
// once more is written. The buffer is a field, not embedded: an embedded
// bytes.Buffer's ReadFrom would let io.Copy (as exec copies a program's
// output) go around Write and its bound.
type capped struct {
	buf  bytes.Buffer
	max  int
	full func()
}

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
