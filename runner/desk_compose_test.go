package runner_test

import (
	"testing"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
)

// TestEveryWithDeskGetsTheDesk: two callers that each ask for the desk (the
// session's server, the notifications) both get it, in order.
func TestEveryWithDeskGetsTheDesk(t *testing.T) {
	t.Parallel()
	pb := playbook(t, "version: 1\nname: two-desks\nspawn: {command: [sh, -c, 'echo done']}\nsteps:\n  - expect: eof\n")
	var got []string
	var ids []string
	take := func(name string) runner.Option {
		return runner.WithDesk(func(d ask.Desk) {
			got = append(got, name)
			ids = append(ids, d.Session().ID)
		})
	}
	run(t, pb, take("first"), take("second"))
	if len(got) != 2 || got[0] != "first" || got[1] != "second" || ids[0] == "" || ids[0] != ids[1] {
		t.Errorf("handed the desk: %q, sessions %q; want first then second, one session", got, ids)
	}
}
