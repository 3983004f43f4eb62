package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/clai-sh/clai/runner/suggest/hookproto"
)

// suggestFlags reads suggest's flags: -json, and -limit N (1 to
// hookproto.MaxLimit), each once at most in any order.
func suggestFlags(args []string) (asJSON bool, limit int, err error) {
	limit = hookproto.DefaultLimit
	seenLimit := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-json" && !asJSON:
			asJSON = true
		case a == "-limit" && !seenLimit && i+1 < len(args):
			i++
			n, err := strconv.Atoi(args[i])
			if err != nil || n < 1 || n > hookproto.MaxLimit {
				return false, 0, fmt.Errorf("suggest -limit %q: want 1 to %d", args[i], hookproto.MaxLimit)
			}
			limit, seenLimit = n, true
		default:
			return false, 0, fmt.Errorf("unknown argument %q of suggest (it takes -json and -limit N)", a)
		}
	}
	return asJSON, limit, nil
}

// suggest asks the daemon for this shell's next commands and prints them as
// clai suggest does: the shell's session, folder and shell from the
// environment, its last command from CLAI_HOOK_LAST (else the daemon's
// record of it).
func (h hook) suggest(stdout io.Writer, asJSON bool, limit int) error {
	t, err := h.transport()
	if err != nil {
		return err
	}
	cwd := h.cwd()
	if cwd == "" {
		return errors.New("suggest: the current folder is not known")
	}
	reply, err := hookproto.Suggest(context.Background(), t, hookproto.SuggestRequest{
		Session: h.getenv("CLAI_SESSION_ID"), Cwd: cwd, LastCmd: h.getenv("CLAI_HOOK_LAST"), Limit: limit,
		Shell: h.getenv("CLAI_HOOK_SHELL"),
	})
	if errors.Is(err, hookproto.ErrNotRunning) {
		return fmt.Errorf("%w: start it with `clai daemon &` (see docs/suggest.md)", err)
	}
	if err != nil {
		return err
	}
	return hookproto.WriteSuggestions(stdout, reply, asJSON)
}
