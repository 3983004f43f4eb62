package daemon

import (
	"context"
	"path/filepath"

	"github.com/clai-sh/clai/runner/suggest/runnable"
)

// maxLogged is how much of a template a log line quotes.
const maxLogged = 200

// runnable is s, the suggestions best first, without those whose command
// the asking shell cannot run (runnable.Check, slots read as words to
// fill), and at most req.Limit of them. A store written before its
// templates were checked, or learnt in another shell, may hold such a
// command: it is left out, with a line in the log.
func (d *server) runnable(ctx context.Context, req SuggestRequest, s []Suggestion) []Suggestion {
	shell := d.askingShell(ctx, req)
	out := make([]Suggestion, 0, min(len(s), req.Limit))
	for _, sg := range s {
		if len(out) == req.Limit {
			break
		}
		if err := runnable.Check(shell, sg.Command); err != nil {
			t := sg.Template
			if len(t) > maxLogged {
				t = t[:maxLogged] + "…"
			}
			d.logf("suggest: left out %q, which the shell cannot run: %v", t, err)
			continue
		}
		out = append(out, sg)
	}
	return out
}

// askingShell is the shell that asks: the request's, else the one the
// session's hooks named, else "" (read by the bash rules). A path
// ("/usr/bin/fish") names the shell by its base name.
func (d *server) askingShell(ctx context.Context, req SuggestRequest) string {
	if req.Shell != "" {
		return filepath.Base(req.Shell)
	}
	if req.Session == "" {
		return ""
	}
	shell, err := d.store.SessionShell(ctx, req.Session)
	if err != nil {
		d.logf("suggest: %v: the bash rules check the suggestions", err)
		return ""
	}
	return shell
}
