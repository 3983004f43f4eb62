package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// TestRunDangerSeesDrawnCommand runs real programs that draw the dangerous
// command with cursor motion, overwrites or an aborted sequence, then ask to
// proceed: the danger rule ends the run and the program never receives a "y".
func TestRunDangerSeesDrawnCommand(t *testing.T) {
	t.Parallel()
	for _, drawn := range []string{
		`rm\033[1C-rf\033[1C/`,
		`rm -rf /x\b `,
		`xx -rf /\rrm`,
		`\033[\030rm -rf /`,
		`\033]0;\030rm -rf /`,
		`xx -rf /\n\033[A\rrm\n`,
		`\0337xx -rf /\nmore\n\0338rm`,
		`rm\342\200\213 -rf /`,
		`rm\033[8mX\033[28m-rf /`,
	} {
		script := `printf '` + drawn + `\r\nProceed? [y/n] '; read a; echo got=$a`
		pb := playbook(t, `
version: 1
name: drawn
spawn: {command: [/bin/sh, -c, %q]}
settings: {min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/n]", line: "y", limit: 1}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: abort}
`, script)
		var out syncBuffer
		rep := run(t, pb, runner.WithMirror(&out))
		wantOutcome(t, rep, engine.Aborted, exitcode.Danger)
		if rep.Rules["proceed"] != 0 || rep.Rules["wipe"] == 0 || strings.Contains(out.String(), "got=y") {
			t.Errorf("%s: rules %v, output %q", drawn, rep.Rules, out.String())
		}
	}
}
