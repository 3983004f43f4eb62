//go:build e2e

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/agenttest"
	"github.com/clai-sh/clai/internal/testprog"
)

// e2ePlaybook is the claude-code preset plus the two things a person at the
// keyboard would do in the scripted conversation: answer Claude Code's
// "What should Claude do instead?" after each refusal (at most three in a
// run), and leave with /exit when the fake model has said its last word.
// Every preset rule and danger rule runs unchanged; run_project_code is on,
// so that npm test is approved.
const e2ePlaybook = `version: 1
name: claude-code-e2e
extends: claude-code
spawn: {command: [claude]}
vars: {run_project_code: "yes"}
rules:
  - name: reply-after-refusal
    match: "What should Claude do instead?"
    line: "Never mind, wrap up."
    limit: 3
  - name: exit-when-done
    match: "SCRIPT-DONE"
    line: "/exit"
    limit: 1
`

// The preset against a real Claude Code, first run, pointed at the fake
// Messages API (testdata/fakes/anthropic): clai gets through the theme picker,
// the security notes and the trust dialog, approves npm test by label, and
// refuses each dangerous command with Esc, so that Claude Code reports the
// call as rejected and it never runs.
func TestPresetDrivesRealClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Claude Code from npm; skipped with -short")
	}
	claude := agenttest.InstallClaudeCode(t)
	clai := testprog.BuildCommand(t, "./cmd/clai")
	fake := testprog.Build(t, "anthropic")

	const npmTest = "npm test"
	cases := []struct {
		name   string
		danger string                        // the danger rule that must refuse
		turns  func(outside string) []string // the fake's script, as its flags
		// npm test runs this often, approved by approve-project-code; in
		// the first case once before the refusal and once after it.
		approvals int
	}{
		{"rm -rf outside the project", "rm-rf-outside", func(out string) []string {
			return []string{"-bash", npmTest, "-bash", "rm -rf " + out, "-bash", npmTest}
		}, 2},
		{"curl piped to sh", "curl-pipe-shell", func(out string) []string {
			return []string{"-bash", "curl -fsS file://" + out + "/install.sh | sh"}
		}, 0},
		{"sudo", "sudo", func(out string) []string {
			return []string{"-bash", "sudo rm " + out + "/marker"}
		}, 0},
		{"chmod -R 777", "chmod-777", func(out string) []string {
			return []string{"-bash", "chmod -R 777 " + out}
		}, 0},
		{"git push --force", "force-push", func(string) []string {
			return []string{"-bash", "git push --force origin main"}
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t)
			script := append(c.turns(s.outside), "-say", "SCRIPT-DONE")
			api, served := agenttest.StartFakeAPI(t, fake, script)
			rep, err := s.run(t, clai, claude, api)
			fakeLog := served()
			if err != nil {
				t.Fatalf("%v\nfake API:\n%s", err, fakeLog)
			}

			if rep.Outcome != "done" || rep.ExitCode != 0 {
				t.Errorf("outcome %q, exit %d (%s), want done, 0", rep.Outcome, rep.ExitCode, rep.Reason)
			}
			want := map[string]int{
				"theme": 1, "security-notes": 1, "trust-folder": 1,
				"approve-read-only": 0, "approve-project-code": c.approvals, "approve-edits": 0,
				"reply-after-refusal": 1, "exit-when-done": 1,
			}
			for rule, n := range want {
				if rep.Rules[rule] != n {
					t.Errorf("rule %s fired %d times, want %d", rule, rep.Rules[rule], n)
				}
			}
			// One dangerous command, one hit: the stream's copies and the
			// screen's count once.
			for _, d := range []string{"rm-rf-outside", "curl-pipe-shell", "sudo", "force-push", "chmod-777", "drop-database", "billing"} {
				if want := map[bool]int{true: 1}[d == c.danger]; rep.Rules[d] != want {
					t.Errorf("danger rule %s fired %d times, want %d", d, rep.Rules[d], want)
				}
			}
			if !rep.sent(c.danger, "keys esc") {
				t.Errorf("%s did not refuse with Esc; timeline:\n%s", c.danger, rep.timeline())
			}

			// What Claude Code told the model: npm test ran, the dangerous call
			// was rejected, and the conversation reached its end.
			ran := strings.Count(fakeLog, " ok > proj@1.0.0 test")
			rejected := strings.Count(fakeLog, " error The user doesn't want to proceed with this tool use.")
			turns := strings.Count(fakeLog, "\nturn ")
			if ran != c.approvals || rejected != 1 || turns != len(script)/2 {
				t.Errorf("fake API saw %d npm test results, %d rejections, %d turns; want %d, 1, %d:\n%s",
					ran, rejected, turns, c.approvals, len(script)/2, fakeLog)
			}
			s.checkUntouched(t)
			rep.checkToolDialogAskedOnce(t)
			if _, err := os.Stat(filepath.Join(s.proj, "tested.txt")); (err == nil) != (c.approvals > 0) {
				t.Errorf("npm test ran: %v, want %v", err == nil, c.approvals > 0)
			}
		})
	}
}

// e2eQuietPlaybook is e2ePlaybook with the preset's nudge ("continue") after
// 5s of quiet instead of minutes: Claude Code 2.1.197 draws find as a search
// ("Searching for 1 pattern…") rather than a Bash( ) line, and after a
// refusal of it goes back to its prompt without asking "What should Claude do
// instead?"; a person would write to it there, and the nudge does.
const e2eQuietPlaybook = e2ePlaybook + `timeouts: {idle: 5s}
nudge: {gap: 5s}
`

// The preset against a real Claude Code whose model asks, in turn, for
// find -delete in the project and git branch -D main (left to a person, who
// reads each dialog for a moment and refuses it with Esc through clai
// answer), for git tag -n twice (approved by approve-read-only each time,
// although the second dialog is drawn the same on the same rows, with no
// question opened), and for rm -rf of a folder outside the project (refused
// by the danger rule). Claude Code 2.1.197 runs ls, cat, wc, du, stat,
// git log, git status and the like without asking; git tag -n is a
// read-only command it does ask about. After each refusal the conversation
// goes on: the playbook answers "What should Claude do instead?", and after
// find's refusal, which asks nothing, the nudge takes Claude Code on.
func TestPresetLeavesWritesToAPersonInRealClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Claude Code from npm; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the test's project is a git repository")
	}
	claude := agenttest.InstallClaudeCode(t)
	clai := testprog.BuildCommand(t, "./cmd/clai")
	fake := testprog.Build(t, "anthropic")

	s := newSession(t)
	s.makeRepo(t)
	if err := os.WriteFile(filepath.Join(s.root, "claude-e2e.yaml"), []byte(e2eQuietPlaybook), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sessions folder of the run's own, for clai answer; short, since a
	// socket's path is at most 107 bytes.
	runtime := filepath.Join(s.root, "rt")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	sessionsVars := []string{"XDG_RUNTIME_DIR=" + runtime, "XDG_STATE_HOME=" + filepath.Join(s.root, "state")}
	s.env = sessionsVars

	find := "find " + filepath.Join(s.proj, "sub") + " -delete"
	branch := "git branch -D main"
	tags := "git tag -n"
	rmOut := "rm -rf " + s.outside
	script := []string{"-bash", find, "-bash", branch, "-bash", tags, "-bash", tags, "-bash", rmOut, "-say", "SCRIPT-DONE"}
	api, served := agenttest.StartFakeAPI(t, fake, script)

	p := person{clai: clai, env: append(os.Environ(), sessionsVars...), command: bashDialogCommand, proceed: "Yes", reads: 2 * time.Second}
	answered, stopPerson := p.answer(map[string]string{find: "esc", branch: "esc"})
	start := time.Now()
	rep, err := s.run(t, clai, claude, api)
	seen := stopPerson()
	fakeLog := served()
	if err != nil {
		t.Fatalf("%v\nfake API:\n%s", err, fakeLog)
	}
	t.Logf("the run took %v; the person answered: %v", time.Since(start).Round(time.Millisecond), seen)

	if rep.Outcome != "done" || rep.ExitCode != 0 {
		t.Errorf("outcome %q, exit %d (%s), want done, 0", rep.Outcome, rep.ExitCode, rep.Reason)
	}
	want := map[string]int{
		"theme": 1, "security-notes": 1, "trust-folder": 1,
		"approve-read-only": 2, "approve-project-code": 0, "approve-edits": 0,
		"reply-after-refusal": 2, "exit-when-done": 1,
		"rm-rf-outside": 1, "curl-pipe-shell": 0, "sudo": 0, "force-push": 0, "chmod-777": 0,
		"drop-database": 0, "billing": 0,
	}
	for rule, n := range want {
		if rep.Rules[rule] != n {
			t.Errorf("rule %s fired %d times, want %d", rule, rep.Rules[rule], n)
		}
	}
	if n := rep.events("nudge"); n != 1 {
		t.Errorf("%d nudges, want 1 (after find's refusal)", n)
	}
	// Both git tag -n dialogs approved by the rule, and nothing else; no
	// question opened on either: it would reach every channel for nothing.
	approved := map[string]int{}
	for _, e := range rep.Timeline {
		if e.Event == "send" && (e.Rule == "approve-read-only" || e.Rule == "approve-project-code") {
			approved[bashDialogCommand(e.Excerpt)]++
		}
	}
	if approved[tags] != 2 || len(approved) != 1 {
		t.Errorf("the approval rules approved %v, want %s twice", approved, tags)
	}
	if q, n := questionOn(rep.Questions, bashDialogCommand, tags); q != nil {
		how := "still open"
		if q.Closed != nil {
			how = q.Closed.How
		}
		t.Errorf("%d questions (the first %s, %s) were opened on a dialog for %s, which the preset approves", n, q.ID, how, tags)
	}
	if !rep.sent("rm-rf-outside", "keys esc") {
		t.Errorf("rm-rf-outside did not refuse with Esc")
	}

	// find -delete and git branch -D were left to a person: nothing approved
	// them, one question was opened for each, and the person's Esc answered
	// it.
	for _, cmd := range []string{find, branch} {
		for _, e := range rep.Timeline {
			if e.Event == "send" && e.Rule != "" && bashDialogCommand(e.Excerpt) == cmd {
				t.Errorf("rule %s sent %q on the dialog for %s", e.Rule, e.Sent, cmd)
			}
		}
		switch q, n := questionOn(rep.Questions, bashDialogCommand, cmd); {
		case q == nil:
			t.Errorf("no question was opened for the dialog for %s", cmd)
		case n != 1:
			// Claude Code shows find as a collapsed search line above the
			// dialog, whose ● blinks: the dialog is still the question.
			t.Errorf("%d questions were opened for the dialog for %s, want 1: the rest reached every channel for nothing", n, cmd)
		}
		if !answered[cmd] {
			t.Errorf("the person never answered a question for %s", cmd)
		}
	}
	rep.checkToolDialogAskedOnce(t)
	rep.checkTypedOnSight(t)

	// What Claude Code told the model: each refusal, the output of both
	// git tag -n runs (v1 and its commit's subject), and every turn of the
	// script.
	const rejected = "error The user doesn't want to proceed with this tool use."
	results := fakeResults(fakeLog)
	for i, want := range []string{rejected, rejected, "ok v1 ", "ok v1 ", rejected} {
		id := fmt.Sprintf("toolu_fake%02d", i+1) // the fake's id of the script's call i
		if got := results[id]; len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Errorf("the model got %q for %s (%s), want one result %q…", got, id, script[2*i+1], want)
		}
	}
	if turns := strings.Count(fakeLog, "\nturn "); turns != len(script)/2 {
		t.Errorf("the fake API served %d turns, want %d", turns, len(script)/2)
	}

	if _, err := os.Stat(filepath.Join(s.proj, "sub", "keep.txt")); err != nil {
		t.Errorf("find -delete ran: %v", err)
	}
	if out, err := s.git("rev-parse", "--verify", "--quiet", "refs/heads/main"); err != nil {
		t.Errorf("git branch -D main ran: %v %s", err, out)
	}
	s.checkUntouched(t)
	if t.Failed() {
		t.Logf("fake API:%s", fakeLog)
		t.Logf("timeline:\n%s", rep.timeline())
		for _, q := range rep.Questions {
			how := "open"
			if q.Closed != nil {
				how = q.Closed.How + " " + q.Closed.At.Sub(q.AskedAt).Round(time.Millisecond).String() + " after"
			}
			t.Logf("question %s (%s), asked %s, closed %s, on:\n%s", q.ID, q.Reason, q.AskedAt.Sub(start).Round(time.Millisecond), how, q.Screen)
		}
	}
}

// session is one first run of Claude Code: an empty home, a project with
// an npm test script, and a folder outside it that dangerous commands aim at.
type session struct {
	root, home, proj, outside string
	env                       []string    // more of clai's environment
	outsideMode               os.FileMode // as made, for checkUntouched
}

// newSession makes the session's folders under a short temporary path, so
// commands naming them fit on one line of an 80-column terminal.
func newSession(t *testing.T) *session {
	t.Helper()
	root, err := os.MkdirTemp("", "clai-cc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	s := &session{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj"), outside: filepath.Join(root, "out")}
	files := map[string]string{
		filepath.Join(s.proj, "package.json"):    `{"name": "proj", "version": "1.0.0", "scripts": {"test": "echo tested > tested.txt"}}` + "\n",
		filepath.Join(s.outside, "marker"):       "must survive\n",
		filepath.Join(s.outside, "install.sh"):   "rm -f " + filepath.Join(s.outside, "marker") + "\n",
		filepath.Join(s.root, "claude-e2e.yaml"): e2ePlaybook,
	}
	for _, dir := range []string{s.home, s.proj, s.outside} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(s.outside)
	if err != nil {
		t.Fatal(err)
	}
	s.outsideMode = st.Mode()
	return s
}

// run drives claude in the project with clai and the e2e playbook, against
// the Messages API at api, and returns clai's report.
func (s *session) run(t *testing.T, clai, claude, api string) (*e2eReport, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reportFile, logFile := filepath.Join(s.root, "report.json"), filepath.Join(s.root, "log.jsonl")
	cmd := exec.CommandContext(ctx, clai, "run", "-q", "--report", reportFile, "--log", logFile,
		filepath.Join(s.root, "claude-e2e.yaml"), "--", "run the tests")
	// Past the deadline, SIGHUP: clai ends Claude Code and still writes
	// the report.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGHUP) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = s.proj
	cmd.Env = agenttest.ClaudeCodeEnv(s.home, claude, api)
	cmd.Env = append(cmd.Env, s.env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	rep, log, err := readRunReport(reportFile, logFile, runErr, out.Bytes())
	if err == nil && runErr != nil {
		t.Logf("clai run: %v\n%s\nlog:\n%s", runErr, out.Bytes(), log)
	}
	return rep, err
}

// makeRepo makes the project a git repository with a folder sub (its file
// keep.txt), a commit tagged v1, and two branches: main, and work checked
// out, so that git branch -D main would delete main.
func (s *session) makeRepo(t *testing.T) {
	t.Helper()
	if err := os.Mkdir(filepath.Join(s.proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.proj, "sub", "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
		{"tag", "v1"},
		{"checkout", "-q", "-b", "work"},
	} {
		if out, err := s.git(args...); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// git runs git in the project, with the session's home, and returns its
// output.
func (s *session) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = s.proj
	cmd.Env = append(os.Environ(), "HOME="+s.home, "GIT_CONFIG_NOSYSTEM=1")
	return cmd.CombinedOutput()
}

// checkUntouched fails t when a dangerous command reached the outside folder.
func (s *session) checkUntouched(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(s.outside, "marker")); err != nil {
		t.Errorf("the marker outside the project is gone: %v", err)
	}
	if st, err := os.Stat(s.outside); err != nil {
		t.Errorf("the folder outside the project is gone: %v", err)
	} else if st.Mode() != s.outsideMode {
		t.Errorf("the folder outside the project is now %v, was %v", st.Mode(), s.outsideMode)
	}
}

// bashDialogCommand returns the command of Claude Code's Bash permission
// dialog on screen (the first row under "Bash command"), or "".
func bashDialogCommand(screen string) string {
	if !strings.Contains(screen, "Do you want to proceed?") {
		return ""
	}
	lines := strings.Split(screen, "\n")
	cmd := ""
	for i, l := range lines {
		if strings.TrimSpace(l) != "Bash command" {
			continue
		}
		for _, next := range lines[i+1:] {
			if next = strings.TrimSpace(next); next != "" {
				cmd = next
				break
			}
		}
	}
	return cmd
}

// fakeResults maps each tool call's id to the results the fake API logged
// for it ("ok TEXT" or "error TEXT", the first line of the result).
func fakeResults(fakeLog string) map[string][]string {
	results := map[string][]string{}
	for _, l := range strings.Split(fakeLog, "\n") {
		if rest, ok := strings.CutPrefix(l, "result "); ok {
			id, what, _ := strings.Cut(rest, " ")
			results[id] = append(results[id], what)
		}
	}
	return results
}

// checkTypedOnSight fails t if the keystrokes of an answer to Claude Code's
// dialog were given up (see agenttest.CheckTypedOnSight).
func (r *e2eReport) checkTypedOnSight(t *testing.T) {
	t.Helper()
	reasons := make([]string, len(r.Timeline))
	for i, e := range r.Timeline {
		reasons[i] = e.Reason
	}
	agenttest.CheckTypedOnSight(t, reasons)
}

// checkToolDialogAskedOnce fails t if the run opened a question of its own
// for Claude Code's question dialog, or for a screen nobody need see (see
// agenttest.CheckToolDialogAskedOnce).
func (r *e2eReport) checkToolDialogAskedOnce(t *testing.T) {
	t.Helper()
	agenttest.CheckToolDialogAskedOnce(t, r.Questions)
}
