package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// sim drives an engine in virtual time, through a Stepper, and records what it
// asks for.
type sim struct {
	t  testing.TB
	e  *engine.Engine
	st *engine.Stepper
	t0 time.Time
	// now is the stepper's time, for a test that makes an observation itself.
	now  time.Time
	sent []string
	// person says, for each of sent, whether it was a person's answer;
	// awaits whether it was typed awaiting a reaction.
	person, awaits []bool
	events         []engine.Event
	killed         bool
	result         *engine.Result
}

func newSim(t testing.TB, yaml string, cfg engine.Config) *sim {
	t.Helper()
	pb, findings := playbooks.Parse("test.yaml", []byte(yaml))
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	s := &sim{t: t, e: engine.NewEngine(pb, cfg), t0: time.Unix(1_700_000_000, 0)}
	s.st = engine.NewStepper(s.e, s.t0, s.apply)
	s.st.Start()
	s.now = s.st.Now()
	return s
}

func (s *sim) apply(actions []engine.Action) {
	for _, a := range actions {
		switch a := a.(type) {
		case *engine.Send:
			text := string(a.AppendBytes(nil))
			if a.Secret.Source != "" {
				text = "<" + string(a.Secret.Source) + ":" + a.Secret.Name + ">" + text
			}
			if a.DryRun {
				text = "dry:" + text
			}
			s.sent = append(s.sent, text)
			s.person = append(s.person, a.Person)
			s.awaits = append(s.awaits, a.AwaitsReaction)
		case *engine.Event:
			s.events = append(s.events, *a)
		case engine.Kill:
			s.killed = true
		case engine.Finish:
			r := a.Result
			s.result = &r
		}
	}
}

// out feeds output after d of virtual time.
func (s *sim) out(d time.Duration, text string) {
	s.st.Output(s.t.Context(), s.now.Add(d), []byte(text))
	s.stepped()
}

// advance moves virtual time by d, ticking at every deadline on the way, as Run does.
// A Tick at the deadline must do something: act, or move the deadline.
func (s *sim) advance(d time.Duration) {
	s.st.Advance(s.t.Context(), d)
	s.stepped()
}

func (s *sim) exit(d time.Duration, code int) {
	s.st.Exit(s.t.Context(), s.now.Add(d), engine.ExitStatus{Code: code})
	s.stepped()
}

// stepped takes the stepper's time, and fails the test if a Tick at a deadline
// did nothing and left the engine due again.
func (s *sim) stepped() {
	s.now = s.st.Now()
	if at, ok := s.st.Stalled(); ok {
		s.t.Fatalf("a Tick at the deadline +%s did nothing, and the deadline stays (state %s)\nevents:\n%s",
			at.Sub(s.t0), s.e.State(), s.timeline())
	}
}

func (s *sim) wantSent(want ...string) {
	s.t.Helper()
	if strings.Join(s.sent, "|") != strings.Join(want, "|") {
		s.t.Fatalf("sent %q, want %q\nevents:\n%s", s.sent, want, s.timeline())
	}
}

func (s *sim) wantState(want engine.State) {
	s.t.Helper()
	if got := s.e.State(); got != want {
		s.t.Fatalf("state %s, want %s\nevents:\n%s", got, want, s.timeline())
	}
}

func (s *sim) wantResult(state engine.State, code int) {
	s.t.Helper()
	if s.result == nil {
		s.t.Fatalf("run not finished (state %s)\nevents:\n%s", s.e.State(), s.timeline())
	}
	if s.result.State != state || s.result.ExitCode != code {
		s.t.Fatalf("result %s/%d (%s), want %s/%d\nevents:\n%s", s.result.State, s.result.ExitCode, s.result.Reason, state, code, s.timeline())
	}
}

func (s *sim) timeline() string {
	var b strings.Builder
	for _, e := range s.events {
		b.WriteString("  " + e.At.String() + " " + string(e.Name) + " " + string(e.State) + " " + e.Rule + e.Step + " " + e.Excerpt + e.Sent + " " + e.Reason + "\n")
	}
	return b.String()
}

const header = "version: 1\nname: t\nspawn: {command: [x]}\n"

func TestStepsInOrderWithTemplates(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
vars: {project: demo}
settings: {min_send_interval: 0s}
steps:
  - expect: "Project name:"
    line: "{{ vars.project }}"
  - expect: {regex: 'Code (?P<code>\d+):'}
    line: "{{ match.code }}"
  - expect: eof
`, engine.Config{Vars: map[string]string{"project": "override"}})
	s.out(10*time.Millisecond, "\x1b[1mProject name:\x1b[0m ")
	s.wantSent("override\r")
	s.out(10*time.Millisecond, "override\r\nCode 4")
	s.out(10*time.Millisecond, "21: ")
	s.wantSent("override\r", "421\r")
	s.exit(10*time.Millisecond, 0)
	s.wantResult(engine.Done, 0)
}

// TestTemplatesReadEveryValue: a template that runs an expression sees the
// run's values, not only the match (the engine fills the rest only for such
// templates), in a step as in a rule.
func TestTemplatesReadEveryValue(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
steps:
  - name: first
    expect: {regex: 'Code (?P<code>\d+):'}
    line: "{{ match.code }} {{ state }} {{ step.name }} {{ elapsed > duration('5ms') }}"
rules:
  - name: again
    match: {regex: 'Again (?P<n>\d+):'}
    line: "{{ match.n }} {{ fired.again }} {{ idle < duration('1s') }} {{ exit_code }}"
`, engine.Config{})
	s.out(10*time.Millisecond, "Code 42: ")
	s.wantSent("42 running first true\r")
	s.out(10*time.Millisecond, "Again 7: ")
	s.wantSent("42 running first true\r", "7 1 true 0\r")
}

func TestMatchConsumesSoOnePromptIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
rules:
  - {name: yes, match: "Continue? [y/n]", line: "y", limit: 5}
`, engine.Config{})
	s.out(time.Millisecond, "Continue? [y/n] ")
	s.out(time.Millisecond, "y\r\n")
	s.wantSent("y\r")
	s.out(time.Millisecond, "working\r\nContinue? [y/n] ")
	s.wantSent("y\r", "y\r")
}

func TestOldTextNeverAnswersAfterASend(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
steps:
  - expect: "Name:"
    line: "a"
rules:
  - {name: old, match: "Overwrite?", line: "y", limit: 5}
`, engine.Config{})
	// The step answers first; the rule's text arrived in the same read, before
	// the answer, and must not be answered later.
	s.out(time.Millisecond, "Overwrite? no wait\nName: ")
	s.wantSent("a\r")
	s.out(time.Millisecond, "a\r\nthanks\r\n")
	s.wantSent("a\r")
}

func TestCasesRepeatAndEOF(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
steps:
  - expect:
      - case: "not empty. Remove files?"
        keys: [down, enter]
        repeat: true
      - case: {regex: 'Done\. Now run'}
  - expect: eof
`, engine.Config{})
	s.out(time.Millisecond, "Target directory not empty. Remove files? ")
	s.out(time.Millisecond, "again: not empty. Remove files? ")
	s.wantSent("\x1b[B\r", "\x1b[B\r")
	s.out(time.Millisecond, "Done. Now run:\n  npm install\n")
	s.exit(time.Millisecond, 0)
	s.wantResult(engine.Done, 0)
}

func TestWhenAndNamedGroups(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
rules:
  - name: docs
    match: {regex: 'Overwrite (?P<file>\S+)\? \[y/N\]'}
    when: 'match.file endsWith ".md"'
    line: "y"
    limit: 5
  - name: others
    match: {regex: 'Overwrite (?P<file>\S+)\? \[y/N\]'}
    line: "n"
    limit: 5
`, engine.Config{})
	s.out(time.Millisecond, "Overwrite README.md? [y/N] ")
	s.out(time.Millisecond, "Overwrite main.go? [y/N] ")
	s.wantSent("y\r", "n\r")
	if f := s.e.Fired(); f["docs"] != 1 || f["others"] != 1 {
		t.Fatalf("fired %v", f)
	}
}

func TestDangerManualStopsAutomation(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/N]", line: "y", limit: 5}
danger:
  - name: wipe
    match: {regex: 'rm\s+-rf\s+/(\s|$)'}
`, engine.Config{})
	s.out(time.Millisecond, "About to run: rm -rf /\nProceed? [y/N] ")
	s.wantSent()
	s.wantState(engine.Manual)
	s.out(time.Millisecond, "Proceed? [y/N] ")
	s.wantSent()
}

func TestDangerSplitAcrossReadsAndFlood(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s, window: 1KiB}
rules:
  - {name: proceed, match: "Proceed?", line: "y", limit: 5}
danger:
  - {name: wipe, match: "rm -rf /", action: abort}
`, engine.Config{})
	// A flood far larger than the window cannot hide the dangerous text, even
	// when it is split across two reads.
	s.out(time.Millisecond, strings.Repeat("log line\n", 10000)+"About to run: rm -")
	s.out(time.Millisecond, "rf /\n"+strings.Repeat("more\n", 10000)+"Proceed? ")
	s.wantSent()
	s.wantResult(engine.Aborted, exitcode.Danger)
	if !s.killed {
		t.Fatal("abort did not kill the program")
	}
}

func TestDangerSeesEachByteOnce(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
danger:
  - {name: sudo, match: "sudo ", action: deny, line: "n"}
`, engine.Config{})
	s.out(time.Millisecond, "Run sudo apt update? ")
	s.advance(time.Second)
	s.out(time.Millisecond, "n\r\nok\n")
	s.out(time.Millisecond, "done\n")
	s.wantSent("n\r")
	if n := s.e.Fired()["sudo"]; n != 1 {
		t.Fatalf("danger fired %d times, want 1", n)
	}
}

func TestDenyAnswersTheNextPromptInsteadOfTheRule(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/N]", line: "y", limit: 5}
danger:
  - {name: force, match: {regex: 'push --force'}, action: deny, line: "n"}
`, engine.Config{})
	// The prompt of the dangerous command arrives later, after the output has
	// settled: the refusal must wait for it, and answer it instead of the rule.
	s.out(time.Millisecond, "git push --force origin main\n")
	s.advance(time.Second)
	s.wantSent()
	s.out(time.Millisecond, "Proceed? [y/N] ")
	s.wantSent("n\r")
	s.out(time.Millisecond, "n\r\nAborted.\nProceed? [y/N] ")
	s.wantSent("n\r", "y\r")
	s.wantState(engine.Running)
}

func TestDenyAtAGenericPrompt(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms}
danger:
  - {name: sudo, match: "sudo ", action: deny, keys: [esc]}
`, engine.Config{})
	s.out(time.Millisecond, "I will run: sudo rm /etc/hosts\nAllow? ")
	s.wantSent()
	s.advance(400 * time.Millisecond)
	s.wantSent("\x1b")
}

func TestCooldownDefersNeverDrops(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
rules:
  - {name: again, match: "Again?", line: "y", cooldown: 2s, limit: 10}
`, engine.Config{})
	s.out(time.Millisecond, "Again? ")
	s.out(100*time.Millisecond, "y\r\nAgain? ")
	s.wantSent("y\r")
	s.advance(time.Second)
	s.wantSent("y\r")
	s.advance(time.Second)
	s.wantSent("y\r", "y\r")
}

func TestMinSendIntervalIsGlobal(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 500ms}
rules:
  - {name: a, match: "A?", line: "a", limit: 10}
  - {name: b, match: "B?", line: "b", limit: 10}
`, engine.Config{})
	s.out(time.Millisecond, "A? ")
	s.out(10*time.Millisecond, "a\r\nB? ")
	s.wantSent("a\r")
	s.advance(500 * time.Millisecond)
	s.wantSent("a\r", "b\r")
}

func TestLimitEscalatesToManual(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {min_send_interval: 0s}
rules:
  - {name: retry, match: "Retry?", line: "y", limit: 2}
`, engine.Config{})
	for range 3 {
		s.out(10*time.Millisecond, "Retry? ")
	}
	s.wantSent("y\r", "y\r")
	s.wantState(engine.Manual)
}

func TestStepTimeoutQuotesTheOutput(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
steps:
  - expect: "Password:"
    secret: env:PASS
    timeout: 5s
`, engine.Config{})
	s.out(time.Millisecond, "Connecting to host...\n")
	s.advance(6 * time.Second)
	s.wantResult(engine.TimedOut, exitcode.Timeout)
	if !strings.Contains(s.result.Reason, "Connecting to host") || !strings.Contains(s.result.Reason, `"Password:"`) {
		t.Fatalf("reason %q", s.result.Reason)
	}
	if !s.killed {
		t.Fatal("timeout did not end the program")
	}
}

func TestTotalTimeout(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"timeouts: {total: 1m}\n", engine.Config{})
	s.advance(59 * time.Second)
	if s.result != nil {
		t.Fatal("finished early")
	}
	s.advance(2 * time.Second)
	s.wantResult(engine.TimedOut, exitcode.Timeout)
}

func TestSecretIsSentByReference(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
steps:
  - expect: "Enter passphrase"
    secret: env:PASS
`, engine.Config{})
	s.out(time.Millisecond, "Enter passphrase (empty for no passphrase): ")
	s.wantSent("<env:PASS>\r")
	for _, e := range s.events {
		if e.Name == "send" && e.Sent != "secret env:PASS" {
			t.Fatalf("send event shows %q", e.Sent)
		}
	}
}

func TestPromptingThenPromptTimeout(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms}
timeouts: {prompt: 1m}
`, engine.Config{})
	s.out(time.Millisecond, "Do you accept the license? (yes/no) ")
	s.advance(400 * time.Millisecond)
	s.wantState(engine.Prompting)
	s.out(time.Second, "\nthinking...\n")
	s.wantState(engine.Running)
	s.out(time.Second, "Continue? [y/n] ")
	s.advance(time.Minute + time.Second)
	s.wantResult(engine.Prompting, exitcode.Manual)
}

func TestNoPromptingForPlainOutput(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 300ms}\n", engine.Config{})
	s.out(time.Millisecond, "compiling 12 packages\n")
	s.advance(time.Second)
	s.wantState(engine.Running)
}

func TestNudgesThenManual(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms}
timeouts: {idle: 10s, prompt: 1m}
nudge: {sequence: ["\r", "continue\r"], gap: 2s, max: 3}
`, engine.Config{})
	s.out(time.Millisecond, "Working...\n")
	s.advance(10 * time.Second)
	s.wantState(engine.Nudging)
	s.wantSent("\r")
	s.out(100*time.Millisecond, "\r\n") // the echo of the nudge is no sign of life
	s.advance(2 * time.Second)
	s.wantSent("\r", "continue\r")
	s.advance(2 * time.Second)
	s.wantSent("\r", "continue\r", "continue\r")
	s.advance(2 * time.Second)
	s.wantState(engine.Manual)
	s.advance(time.Minute)
	s.wantResult(engine.Manual, exitcode.Manual)
}

func TestNudgeStopsWhenOutputResumes(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
timeouts: {idle: 10s}
nudge: {sequence: ["continue\r"], gap: 2s, max: 3}
`, engine.Config{})
	s.advance(10 * time.Second)
	s.wantSent("continue\r")
	s.out(time.Second, "Resuming the task\n")
	s.wantState(engine.Running)
	s.advance(5 * time.Second)
	s.wantSent("continue\r")
}

func TestIdleWithoutNudgeGoesManual(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"timeouts: {idle: 5s}\n", engine.Config{Interactive: true})
	s.advance(6 * time.Second)
	s.wantState(engine.Manual)
	s.advance(time.Hour)
	if s.result != nil {
		t.Fatal("an interactive MANUAL run must wait for the person")
	}
}

func TestRetryOnceThenPrompting(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s}
steps:
  - expect: "Name:"
    line: "x"
  - expect: eof
`, engine.Config{})
	s.out(time.Millisecond, "Name: ")
	s.advance(time.Second)
	s.wantSent("x\r", "x\r")
	s.advance(time.Second)
	s.wantState(engine.Prompting)
}

func TestInterruptOnceManualTwiceAbort(t *testing.T) {
	t.Parallel()
	s := newSim(t, header, engine.Config{Interactive: true})
	s.apply(s.e.Interrupt(s.now))
	s.wantState(engine.Manual)
	s.advance(500 * time.Millisecond)
	s.apply(s.e.Interrupt(s.now))
	s.wantResult(engine.Aborted, exitcode.Interrupted)
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"steps:\n  - expect: \"Done\"\n", engine.Config{})
	s.exit(time.Millisecond, 0)
	s.wantResult(engine.Failed, exitcode.Failed)
	if !strings.Contains(s.result.Reason, `waited for "Done"`) {
		t.Fatalf("reason %q", s.result.Reason)
	}

	s = newSim(t, header, engine.Config{})
	s.exit(time.Millisecond, 3)
	s.wantResult(engine.Failed, exitcode.Failed)

	s = newSim(t, header+"danger:\n  - {name: d, match: \"DROP TABLE\"}\n", engine.Config{})
	s.out(time.Millisecond, "DROP TABLE users;")
	s.exit(time.Millisecond, 0)
	s.wantResult(engine.Manual, exitcode.Manual)
}

func TestDryRunWouldSend(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"rules:\n  - {name: y, match: \"[y/n]\", line: \"y\", limit: 1}\n", engine.Config{DryRun: true})
	s.out(time.Millisecond, "Continue? [y/n] ")
	s.wantSent("dry:y\r")
	if s.events[len(s.events)-1].Name != "would-send" {
		t.Fatalf("last event %+v", s.events[len(s.events)-1])
	}
}

func TestWindowStaysBounded(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {window: 4KiB, min_send_interval: 0s}
rules:
  - {name: y, match: "Continue? [y/n]", line: "y", limit: 1}
`, engine.Config{})
	chunk := strings.Repeat("\x1b[32mINFO\x1b[0m all good\r\n", 2000)
	for range 50 {
		s.out(time.Microsecond, chunk)
	}
	s.out(time.Microsecond, "Continue? [y/n] ")
	s.wantSent("y\r")
}

func TestDryRunInATerminalLeavesTheAnswerToThePerson(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"rules:\n  - {name: y, match: \"[y/n]\", line: \"y\", limit: 1}\n", engine.Config{DryRun: true, Interactive: true})
	s.out(time.Millisecond, "Continue? [y/n] ")
	s.wantSent("dry:y\r")
	s.advance(10 * time.Second)
	if s.result != nil {
		t.Fatalf("the run ended: %+v", s.result)
	}
	s.apply(s.e.Input(s.now, 2))
	s.out(time.Millisecond, "y\r\nok\n")
	s.wantState(engine.Running)
}

func TestScreenMatchingSeesCursorDrawnText(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: trust, match: "Do you trust this folder?", keys: [enter], limit: 5}
`, engine.Config{Rows: 10, Cols: 60})
	// Spaces drawn as cursor jumps, as Ink does: the stream never holds the phrase.
	s.out(time.Millisecond, "\x1b[2;1HDo\x1b[2;4Hyou\x1b[2;8Htrust\x1b[2;14Hthis\x1b[2;19Hfolder?")
	s.wantSent()
	s.advance(150 * time.Millisecond)
	s.wantSent("\r")
	// A redraw of the same dialog does not answer twice; the dialog going away
	// and coming back does.
	s.out(time.Millisecond, "\x1b[2;1HDo you trust this folder?")
	s.advance(150 * time.Millisecond)
	s.wantSent("\r")
	s.out(time.Millisecond, "\x1b[2;1H\x1b[2K(thinking)")
	s.advance(150 * time.Millisecond)
	s.out(time.Millisecond, "\x1b[2;1H\x1b[2KDo you trust this folder?")
	s.advance(150 * time.Millisecond)
	s.wantSent("\r", "\r")
}

func TestScreenAnswersTerminalQueriesAndAppCursor(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Pick one", keys: [down, enter]}
`, engine.Config{Rows: 10, Cols: 40})
	// A program asks where the cursor is and switches arrows to application mode.
	s.out(time.Millisecond, "\x1b[3;5H\x1b[6n\x1b[?1h")
	s.wantSent("\x1b[3;5R")
	s.out(time.Millisecond, "Pick one")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[3;5R", "\x1bOB\r")
}

func TestScreenDangerSeesCursorDrawnText(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
rules:
  - {name: proceed, match: "Do you want to proceed?", keys: [enter], limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}}
`, engine.Config{Rows: 10, Cols: 60})
	// The command is drawn with cursor jumps for spaces: only the screen shows it.
	s.out(time.Millisecond, "\x1b[2;3Hrm\x1b[2;6H-rf\x1b[2;10H/\x1b[4;1HDo you want to proceed?")
	s.advance(150 * time.Millisecond)
	s.wantSent()
	s.wantState(engine.Manual)
}

const trustDialog = "\x1b[2J\x1b[1;1H Do you trust this folder?\x1b[3;1H ❯ 1. Yes, I trust this folder\x1b[4;1H   2. No, exit\x1b[6;1H Enter to confirm"

func TestChooseByLabelMovesTheMarkerThenConfirms(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - {expect: "Do you trust this folder?", choose: "No, exit"}
  - expect: eof
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, trustDialog)
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B")
	// The program redraws the marker on the second option: clai checks, then confirms.
	s.out(10*time.Millisecond, "\x1b[3;1H   1. Yes, I trust this folder\x1b[4;1H ❯ 2. No, exit")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B", "\r")
	s.exit(time.Millisecond, 0)
	s.wantResult(engine.Done, 0)
}

func TestChooseConfirmsWhereTheMarkerAlreadyIs(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
rules:
  - {name: trust, match: "Do you trust this folder?", choose: {regex: '^Yes'}, limit: 1}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, trustDialog)
	s.advance(150 * time.Millisecond)
	s.wantSent("\r")
}

func TestChooseMissingLabelIsAFailureNotAGuess(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Do you trust this folder?", choose: "Yes, and don't ask again"}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, trustDialog)
	s.advance(150 * time.Millisecond)
	s.wantSent()
	s.wantState(engine.Manual)
	if last := s.events[len(s.events)-1]; !strings.Contains(last.Reason, "no such option on screen (options: Yes, I trust this folder | No, exit)") {
		t.Fatalf("reason %q", last.Reason)
	}
}

func TestChooseTypesTheNumberWithoutACursor(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Select a framework", choose: "React"}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "\x1b[1;1HSelect a framework:\x1b[2;1H  1) Vanilla\x1b[3;1H  2) Vue\x1b[4;1H  3) React\x1b[5;1HYour choice: ")
	s.advance(150 * time.Millisecond)
	s.wantSent("3\r")
}

// On a screen only what changed since the last answer acts: the answered question
// stays on screen while the answer is echoed after it and a spinner redraws below,
// and must not be answered again; the same question asked again on a new row is.
func TestScreenOnlyChangedCellsAct(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - expect:
      - {case: "Continue? [y/n]", line: "y", repeat: true}
`, engine.Config{Rows: 6, Cols: 40})
	s.out(time.Millisecond, "\x1b[1;1HContinue? [y/n] ")
	s.advance(150 * time.Millisecond)
	s.wantSent("y\r")
	s.out(time.Millisecond, "y\r\n")
	for _, frame := range []string{"|", "/", "-"} {
		s.out(time.Millisecond, "\x1b[5;1H"+frame+" working")
		s.advance(150 * time.Millisecond)
	}
	s.wantSent("y\r")
	s.out(time.Millisecond, "\x1b[2;1HContinue? [y/n] ")
	s.advance(150 * time.Millisecond)
	s.wantSent("y\r", "y\r")
}

// A screen that scrolls moves the answered question up a row: it is the same text,
// not a new question.
func TestScreenScrolledQuestionIsNotNew(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - expect:
      - {case: "Proceed? [y/n]", line: "y", repeat: true}
`, engine.Config{Rows: 4, Cols: 40})
	s.out(time.Millisecond, "line 1\r\nline 2\r\nline 3\r\nProceed? [y/n] ")
	s.advance(150 * time.Millisecond)
	s.wantSent("y\r")
	// The answer is echoed and the program goes on printing: the screen scrolls.
	s.out(time.Millisecond, "y\r\nworking\r\n")
	s.advance(150 * time.Millisecond)
	s.out(time.Millisecond, "still working")
	s.advance(150 * time.Millisecond)
	s.wantSent("y\r")
}

// dangerHits counts the danger events of a rule.
func (s *sim) dangerHits(rule string) int {
	n := 0
	for _, e := range s.events {
		if e.Name == "danger" && e.Rule == rule {
			n++
		}
	}
	return n
}

// On a screen one dangerous command counts once, though the stream shows it in the
// dialog, again in a redraw, and the screen shows it too; a second command of the
// same kind, drawn while the first is still on screen, counts again and is refused
// again.
func TestScreenDangerCountsEachAppearanceOnce(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: proceed, match: "Do you want to proceed?", keys: [enter], limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm -rf /\S+'}, action: deny, keys: [esc]}
`, engine.Config{Rows: 10, Cols: 60})
	dialog := "\x1b[2;1H\x1b[2KBash: rm -rf /srv\x1b[4;1H\x1b[2KDo you want to proceed?"
	s.out(time.Millisecond, dialog)
	s.out(time.Millisecond, dialog) // a redraw
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b")
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("%d danger hits for one command, want 1\n%s", n, s.timeline())
	}
	// The first command stays in the transcript; a second dialog asks again.
	s.out(time.Millisecond, "\x1b[4;1H\x1b[2K  Interrupted\x1b[6;1HBash: rm -rf /var\x1b[8;1HDo you want to proceed?")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b", "\x1b")
	if n := s.dangerHits("wipe"); n != 2 {
		t.Fatalf("%d danger hits for two commands, want 2\n%s", n, s.timeline())
	}
}

// An agent that says it is working ("esc to interrupt") waits at no prompt and is
// not nudged, however long it stays quiet; once it is idle, it is.
func TestBusyAgentIsNeitherPromptingNorNudged(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
timeouts: {idle: 10s, prompt: 1h}
nudge: {sequence: ["continue\r"], gap: 5s, max: 1}
`, engine.Config{Rows: 8, Cols: 60})
	s.out(time.Millisecond, "\x1b[2;1H● Running the tests…\x1b[4;1H✻ Working (12s · esc to interrupt)\x1b[6;1H❯ ")
	s.advance(time.Minute)
	s.wantState(engine.Running)
	s.wantSent()
	// Done working: the prompt alone is left, and idle means idle.
	s.out(time.Millisecond, "\x1b[4;1H\x1b[2K")
	s.advance(11 * time.Second)
	s.wantSent("continue\r")
}

// A menu in a box, with blank box lines and a footer under it, is a prompt.
func TestPromptingAtAMenuInABox(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 300ms}\n", engine.Config{Rows: 12, Cols: 40})
	s.out(time.Millisecond, "\x1b[1;1H╭──────────────────────────────────────╮"+
		"\x1b[2;1H│ How would you like to authenticate?  │"+
		"\x1b[3;1H│                                      │"+
		"\x1b[4;1H│ ● 1. Sign in with Google             │"+
		"\x1b[5;1H│   2. Use Gemini API Key              │"+
		"\x1b[6;1H│                                      │"+
		"\x1b[7;1H│ (Use Enter to select)                │"+
		"\x1b[8;1H│                                      │"+
		"\x1b[9;1H╰──────────────────────────────────────╯")
	s.advance(400 * time.Millisecond)
	s.wantState(engine.Prompting)
}

// Gemini CLI draws its dialogs in a box, sometimes indented: the menu is read
// inside it.
func TestChooseInsideABox(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: allow, match: "Allow execution of [Shell]?", choose: "Allow for this session", limit: 1}
`, engine.Config{Rows: 10, Cols: 40})
	s.out(time.Millisecond, "\x1b[1;1H ╭─────────────────────────────────────╮"+
		"\x1b[2;1H │ Allow execution of [Shell]?         │"+
		"\x1b[3;1H │                                     │"+
		"\x1b[4;1H │ ● 1. Allow once                     │"+
		"\x1b[5;1H │   2. Allow for this session         │"+
		"\x1b[6;1H │   3. No, suggest changes (esc)      │"+
		"\x1b[7;1H ╰─────────────────────────────────────╯")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B")
	s.out(10*time.Millisecond, "\x1b[4;1H │   1. Allow once                     │\x1b[5;1H │ ● 2. Allow for this session         │")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B", "\r")
}

// A rule fires again when its question is asked again below the first, which is
// still on screen; a redraw of both does not fire it.
func TestScreenRuleFiresForEachNewCopy(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
rules:
  - {name: instead, match: "What should it do instead?", line: "try again", limit: 5}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "\x1b[2;1HInterrupted. What should it do instead?\x1b[3;1H> ")
	s.advance(150 * time.Millisecond)
	s.wantSent("try again\r")
	s.out(time.Millisecond, "try again\x1b[5;1HInterrupted. What should it do instead?\x1b[6;1H> ")
	s.advance(150 * time.Millisecond)
	s.wantSent("try again\r", "try again\r")
	// A redraw of the whole screen: the same two copies.
	s.out(time.Millisecond, "\x1b[2;1HInterrupted. What should it do instead?\x1b[5;1HInterrupted. What should it do instead?")
	s.advance(150 * time.Millisecond)
	s.wantSent("try again\r", "try again\r")
}

// TestPromptWithDefaultInParenthesesEndsHeadless: npm init's question, as its
// bytes reach the terminal, is a prompt nothing answers; headless, the run ends
// after timeouts.prompt, naming it.
func TestPromptWithDefaultInParenthesesEndsHeadless(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms}
timeouts: {prompt: 1m}
`, engine.Config{})
	s.out(time.Millisecond, "Press ^C at any time to quit.\r\n\u280b\x1b[1G\x1b[0K")
	s.out(70*time.Millisecond, "\x1b[1G\x1b[0Jpackage name: (npminit-demo) \x1b[30G")
	s.advance(400 * time.Millisecond)
	s.wantState(engine.Prompting)
	s.advance(time.Minute)
	s.wantResult(engine.Prompting, exitcode.Manual)
	if !strings.Contains(s.result.Reason, "package name: (npminit-demo)") {
		t.Fatalf("reason %q does not name the prompt", s.result.Reason)
	}
}

// TestOutputWithBracketsIsNoPrompt: a value printed in brackets is output.
func TestOutputWithBracketsIsNoPrompt(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {settle: 300ms}\n", engine.Config{})
	s.out(time.Millisecond, "answer=[y]\r\n")
	s.advance(time.Second)
	s.wantState(engine.Running)
}

// TestNoRetryWithEchoOff: an answer typed while the terminal has echo off (a
// password) shows nothing; the program then works for seconds. The answer is
// not typed again, so the next question gets its own answer only.
func TestNoRetryWithEchoOff(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s}
steps:
  - expect: "Password: "
    line: "hunter2"
  - expect: "Next? [y/n] "
    line: "y"
  - expect: eof
`, engine.Config{})
	s.out(time.Millisecond, "Password: ")
	s.wantSent("hunter2\r")
	s.e.Echo(false) // as the session finds the terminal when it types the answer
	s.advance(2 * time.Second)
	s.wantSent("hunter2\r")
	s.wantState(engine.Running)
	s.out(0, "Next? [y/n] ")
	s.wantSent("hunter2\r", "y\r")
}

// TestNoRetryOnceEchoIsOff: echo turned off while clai waits for a reaction
// (the session looks before each Tick) is a reaction too.
func TestNoRetryOnceEchoIsOff(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s}
steps:
  - expect: "Name: "
    line: "x"
`, engine.Config{})
	s.out(time.Millisecond, "Name: ")
	s.wantAwaits(true)
	s.advance(500 * time.Millisecond)
	s.e.Echo(false)
	s.advance(2 * time.Second)
	s.wantSent("x\r")
}

// TestNoRetryAfterTextPastTheQuestion: a question with more output after it
// was not what the program waited at; silence after the answer is no sign it
// was missed.
func TestNoRetryAfterTextPastTheQuestion(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s}
rules:
  - {name: go, match: "Proceed?", line: "y"}
`, engine.Config{})
	s.out(time.Millisecond, "Proceed? (the installer continues on its own)\r\ninstalling...\r\n")
	s.advance(3 * time.Second)
	s.wantSent("y\r")
	s.wantState(engine.Running)
}

// TestRetryOffSendsOnce: settings.retry: false never sends an answer again.
func TestRetryOffSendsOnce(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {settle: 300ms, min_send_interval: 0s, retry: false}
steps:
  - expect: "Name:"
    line: "x"
  - expect: eof
`, engine.Config{})
	s.out(time.Millisecond, "Name: ")
	s.advance(3 * time.Second)
	s.wantSent("x\r")
}
