package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// wantDryRunEnd fails s unless the run ended as a headless dry run does where
// the program waits: done, exit 0, the reason naming the answer.
func (s *sim) wantDryRunEnd(answer string) {
	s.t.Helper()
	s.wantResult(engine.Done, exitcode.Done)
	if want := "waits for the answer clai would have sent (" + answer + ")"; !strings.Contains(s.result.Reason, want) {
		s.t.Fatalf("reason %q, want it to say %q", s.result.Reason, want)
	}
}

// A headless dry run ends where the program waits for the answer clai would
// have sent, whatever the program writes meanwhile without that answer: an
// escape sequence after its prompt in a write of its own (Node's readline
// turns on bracketed paste and moves the cursor), the rest of its prompt, or,
// when the first step sends before the program showed anything, what the
// program shows as it starts.
func TestDryRunEndsWhereTheProgramWaits(t *testing.T) {
	t.Parallel()
	pkg := `
rules:
  - {name: pkg, match: "package name:", line: "my-pkg", limit: 1}
`
	calc := `
steps:
  - send: "1+1\n"
  - expect: "2"
  - send: "quit\n"
  - expect: eof
`
	cases := []struct {
		name, body, answer string
		// output is what the program writes, one read each, a millisecond apart.
		output []string
	}{
		{"no more output", pkg, `"my-pkg\r"`, []string{"package name: (demo) "}},
		{"an escape in a write of its own", pkg, `"my-pkg\r"`, []string{"package name: (demo) ", "\x1b[?2004h"}},
		{"a cursor move in a write of its own", pkg, `"my-pkg\r"`, []string{"\x1b[1G\x1b[0Jpackage name: (demo) ", "\x1b[22G"}},
		{"the prompt redrawn", pkg, `"my-pkg\r"`, []string{"package name: (demo) ", "\x1b[1G\x1b[0Jpackage name: (demo) \x1b[22G"}},
		{"the rest of the prompt", pkg, `"my-pkg\r"`, []string{"package name:", " (demo) "}},
		{"a first step that sends, then an escape", calc, `"1+1\n"`, []string{"\x1b[?2004h"}},
		{"a first step that sends, then a banner", calc, `"1+1\n"`, []string{"calc 1.0\r\nType quit to leave.\r\n"}},
		{"a first step that sends, then nothing", calc, `"1+1\n"`, nil},
	}
	for _, c := range cases {
		for _, mode := range []string{"stream", "screen"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				s := newSim(t, header+"settings: {match: "+mode+", settle: 300ms}\ntimeouts: {step: 10s}\n"+c.body, engine.Config{DryRun: true, Rows: 10, Cols: 60})
				for _, o := range c.output {
					s.out(time.Millisecond, o)
				}
				s.advance(time.Minute)
				s.wantDryRunEnd(c.answer)
				if len(s.sent) != 1 {
					t.Fatalf("would send %q, want one answer", s.sent)
				}
			})
		}
	}
}

// Output that a rule or step answers after a would-send is answered too (a
// would-send as well, here held back by min_send_interval longer than settle);
// the run ends where the program waits after the last.
func TestDryRunAnswersWhatFollowsThenEnds(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 1s}
rules:
  - {name: pkg, match: "package name:", line: "my-pkg", limit: 1}
  - {name: version, match: "version:", line: "1.0.0", limit: 1}
`, engine.Config{DryRun: true})
	s.out(time.Millisecond, "package name: (demo) ")
	s.out(time.Millisecond, "\r\nversion: (0.1.0) ")
	s.advance(time.Minute)
	s.wantDryRunEnd(`"1.0.0\r"`)
	s.wantSent("dry:my-pkg\r", "dry:1.0.0\r")
}

// A choose in a dry run moves no marker: the run ends there too.
func TestDryRunChooseEndsWhereTheProgramWaits(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Pick one", choose: "Vue"}
  - expect: eof
`, engine.Config{DryRun: true, Rows: 10, Cols: 60})
	s.out(time.Millisecond, "Pick one\r\n❯ Vanilla\r\n  Vue\r\n  React\r\n")
	s.advance(time.Minute)
	s.wantDryRunEnd(`"keys down×1 toward \"Vue\""`)
}

// A nudge a dry run would send is an answer the idle program waits for, too.
func TestDryRunNudgeEndsWhereTheProgramWaits(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
timeouts: {idle: 5s}
nudge: {sequence: ["continue\r"], gap: 2s, max: 3}
`, engine.Config{DryRun: true})
	s.out(time.Millisecond, "Working...\n")
	s.advance(time.Minute)
	s.wantDryRunEnd(`"continue\r"`)
	s.wantSent("dry:continue\r")
}
