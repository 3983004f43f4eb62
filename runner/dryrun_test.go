package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// wantDryRunOutcome fails t unless a headless dry run ended where the program
// waits for answer, with one would-send.
func wantDryRunOutcome(t *testing.T, rep *report.Report, answer string) {
	t.Helper()
	wantOutcome(t, rep, engine.Done, exitcode.Done)
	if want := "waits for the answer clai would have sent (" + answer + ")"; !strings.Contains(rep.Reason, want) {
		t.Fatalf("reason %q, want it to say %q", rep.Reason, want)
	}
	var sent []string
	for _, e := range rep.Timeline {
		if e.Event == "would-send" {
			sent = append(sent, e.Sent)
		} else if e.Event == "send" {
			t.Fatalf("a dry run sent %q", e.Sent)
		}
	}
	if len(sent) != 1 {
		t.Fatalf("would send %q, want one answer", sent)
	}
}

// Real programs, headless: the question and the escape sequence after it
// reach clai in reads of their own; a first step sends before the program
// shows anything, and what it then shows is an escape sequence.
func TestRunDryRunEndsWhereTheProgramWaits(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	cases := []struct {
		name, args, body, answer string
	}{
		{"an escape after the question", `-q, "package name: (demo) ", -after, "\e[?2004h"`, `
rules:
  - {name: pkg, match: "package name:", line: "my-pkg", limit: 1}
`, `"my-pkg\r"`},
		{"a cursor move after the question", `-q, "package name: (demo) ", -after, "\e[22G"`, `
rules:
  - {name: pkg, match: "package name:", line: "my-pkg", limit: 1}
`, `"my-pkg\r"`},
		{"a first step that sends", `-q, "", -after, "\e[?2004h"`, `
steps:
  - send: "1+1\n"
  - expect: "2"
  - send: "quit\n"
  - expect: eof
`, `"1+1\n"`},
	}
	for _, c := range cases {
		for _, mode := range []string{"stream", "screen"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				pb := playbook(t, `
version: 1
name: dry
spawn: {command: [%q, %s]}
settings: {match: %s}
timeouts: {total: 20s}
`+c.body, prompter, c.args, mode)
				wantDryRunOutcome(t, run(t, pb, runner.WithDryRun(true)), c.answer)
			})
		}
	}
}
