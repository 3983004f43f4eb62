// Package playtest runs a playbook's own tests (its tests: section) in
// virtual time: each test's output is fed to the engine a line at a time,
// as a program writes it, or a recording is replayed, and what clai would
// send, the rules fired, the state and the exit code are checked against
// the test's expectations. Nothing is spawned; clai test and clai lint call
// it.
package playtest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/playback"
)

// TestResult is the outcome of one of a playbook's own tests.
type TestResult struct {
	Test *playbooks.Test
	// Failures says what did not hold; empty when the test passed.
	Failures []string
	State    engine.State
	Sent     string
	Fired    []string
	// Exit is the exit code clai would return if the program ended (with status 0)
	// at the end of the test's output.
	Exit int
}

// Passed reports whether every expectation held.
func (r TestResult) Passed() bool { return len(r.Failures) == 0 }

// RunTests runs the playbook's tests through the engine in virtual time; nothing is
// spawned. A test's output is fed a line at a time, as a program writes it, and
// clai's answers (deferred ones included) go out before the next line: the output
// of a test reads like a transcript of a session. When ctx ends, the tests stop:
// the results are those of the tests that ran to their end, and the caller reads
// ctx.Err() to know.
func RunTests(ctx context.Context, pb *playbooks.Playbook) []TestResult {
	out := make([]TestResult, 0, len(pb.Tests))
	for _, t := range pb.Tests {
		r := runTest(ctx, pb, t)
		if ctx.Err() != nil {
			break
		}
		out = append(out, r)
	}
	return out
}

func runTest(ctx context.Context, pb *playbooks.Playbook, t *playbooks.Test) TestResult {
	res := TestResult{Test: t}
	var sent strings.Builder
	take := func(actions []engine.Action) {
		for _, a := range actions {
			if s, ok := a.(*engine.Send); ok {
				if s.Secret.Source != "" {
					fmt.Fprintf(&sent, "<secret %s:%s>", s.Secret.Source, s.Secret.Name)
				}
				sent.Write(s.AppendBytes(nil))
			}
		}
	}
	var e *engine.Engine
	var end time.Time // the virtual time the test's output ended at
	if t.Cast != "" {
		// A recording is replayed to its end, as clai run --replay does.
		rec, err := cast.OpenReader(pb.ResolvePath(t.Cast))
		if err != nil {
			res.Failures = []string{err.Error()}
			return res
		}
		defer rec.Close()
		rows, cols := testSize(pb, t)
		if t.Size == nil {
			rows, cols = rec.Header().Height, rec.Header().Width
		}
		e = engine.NewEngine(pb, engine.Config{DryRun: true, Replay: true, Rows: rows, Cols: cols,
			Vars: testVars(pb, t), Project: testProject(pb, t)})
		if end, _, err = playback.Feed(ctx, e, rec.All(), time.Unix(0, 0).UTC(), take); err != nil {
			res.Failures = []string{err.Error()}
			return res
		}
	} else {
		rows, cols := testSize(pb, t)
		e = engine.NewEngine(pb, engine.Config{Rows: rows, Cols: cols, Vars: testVars(pb, t), Project: testProject(pb, t)})
		end = feedTranscript(ctx, e, pb, t.Output, take)
	}
	res.State, res.Sent = e.State(), sent.String()
	for name, n := range e.Fired() {
		if n > 0 {
			res.Fired = append(res.Fired, name)
		}
	}
	slices.Sort(res.Fired)
	if r := e.Result(); r != nil {
		res.State, res.Exit = r.State, r.ExitCode
	} else {
		// The output ends, in the test's own time.
		e.Exit(end, engine.ExitStatus{})
		res.Exit = e.Result().ExitCode
	}
	exp := t.Expect
	if exp.State != nil && string(res.State) != *exp.State {
		res.Failures = append(res.Failures, fmt.Sprintf("state is %s, want %s", res.State, *exp.State))
	}
	if exp.Sent != nil && res.Sent != *exp.Sent {
		res.Failures = append(res.Failures, fmt.Sprintf("sent %q, want %q", res.Sent, *exp.Sent))
	}
	if exp.Fired != nil {
		want := append([]string(nil), exp.Fired...)
		slices.Sort(want)
		if !slices.Equal(res.Fired, want) {
			res.Failures = append(res.Failures, fmt.Sprintf("fired %v, want %v", res.Fired, want))
		}
	}
	if exp.Exit != nil && res.Exit != *exp.Exit {
		res.Failures = append(res.Failures, fmt.Sprintf("exit code is %d, want %d", res.Exit, *exp.Exit))
	}
	return res
}

// testSize is the screen size of a test: its own, the playbook's, or 24x80.
func testSize(pb *playbooks.Playbook, t *playbooks.Test) (rows, cols int) {
	switch {
	case t.Size != nil:
		return t.Size.Rows, t.Size.Cols
	case pb.Spawn.Size != nil:
		return pb.Spawn.Size.Rows, pb.Spawn.Size.Cols
	}
	return 0, 0
}

// feedTranscript feeds a test's output to the engine a line at a time, letting
// deferred answers go out before the next line, as they would while the program
// waits for them. It returns the virtual time the output ended at.
func feedTranscript(ctx context.Context, e *engine.Engine, pb *playbooks.Playbook, output string, take func([]engine.Action)) time.Time {
	st := engine.NewStepper(e, time.Unix(0, 0).UTC(), take)
	horizon := max(pb.Settings.Settle, pb.Settings.MinSendInterval) + time.Millisecond
	st.Start()
	lines := splitLines(output)
	if pb.Settings.Match == playbooks.MatchScreen {
		// A screen is drawn at once: the test's output is one screenful.
		lines = []string{strings.ReplaceAll(strings.ReplaceAll(output, "\r\n", "\n"), "\n", "\r\n")}
	}
	for _, line := range lines {
		if e.Result() != nil {
			break
		}
		// A terminal turns "\n" into "\r\n" on the way out (ONLCR): so does
		// the test, for screen matching.
		if strings.HasSuffix(line, "\n") && !strings.HasSuffix(line, "\r\n") {
			line = strings.TrimSuffix(line, "\n") + "\r\n"
		}
		st.Output(ctx, st.Now().Add(time.Millisecond), []byte(line))
		// Deferred answers go out before the next line.
		st.Advance(ctx, horizon)
	}
	return st.Now()
}

// splitLines splits text after each newline, keeping the newlines.
func splitLines(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// TestFindings runs the playbook's tests and reports each failure as a finding at
// the test's line; when ctx ends, the tests stop as RunTests says.
func TestFindings(ctx context.Context, pb *playbooks.Playbook) diag.List {
	var out diag.List
	for _, r := range RunTests(ctx, pb) {
		if r.Passed() {
			continue
		}
		out = append(out, diag.Diagnostic{
			Pos: r.Test.Pos, Severity: diag.Error, Rule: "test",
			Message: fmt.Sprintf("test %q fails: %s", r.Test.Name, strings.Join(r.Failures, "; ")),
			Hint:    "fix the playbook, or the test's expect if the playbook is right",
		})
	}
	return out
}

// testProject is the project of one of a playbook's tests: its project:, a
// path relative to the playbook's folder, else the current folder.
func testProject(pb *playbooks.Playbook, t *playbooks.Test) string {
	if t.Project != "" {
		return pb.ResolvePath(t.Project)
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// testVars are the variables of one of a playbook's tests: the playbook's,
// with the test's own over them; nil when the test sets none (the engine
// then takes the playbook's).
func testVars(pb *playbooks.Playbook, t *playbooks.Test) map[string]string {
	if len(t.Vars) == 0 {
		return nil
	}
	vars := map[string]string{}
	for _, v := range pb.Vars {
		vars[v.Name] = v.Value
	}
	for _, v := range t.Vars {
		vars[v.Name] = v.Value
	}
	return vars
}
