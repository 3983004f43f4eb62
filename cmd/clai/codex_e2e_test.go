//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/agenttest"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
)

// codexVersion is the release of Codex CLI the codex preset is checked
// against end to end.
const codexVersion = "0.171.0"

// codexE2EPlaybook is the codex preset plus what a person would add for the
// scripted conversation: a short idle time and nudge gap, so that the
// preset's nudge ("continue") takes Codex on after each refusal, which ends
// its turn, and /exit once the fake model has said its last word. The idle
// time is longer than Codex takes to draw its first screen on a loaded
// machine: at 3 s, a nudge came before the trust dialog was drawn, and its
// Enter took the dialog's default. Every
// preset rule and danger rule runs unchanged; the dialogs the preset leaves to
// a person are answered by the test, with clai answer.
const codexE2EPlaybook = `version: 1
name: codex-e2e
extends: codex
spawn: {command: [codex]}
timeouts: {idle: 6s, total: 120s}
nudge: {gap: 3s}
rules:
  - name: exit-when-done
    match: "SCRIPT-DONE"
    line: "/exit"
    limit: 1
`

// codexPrompt is the prompt given to Codex after "--".
const codexPrompt = "run the script"

// The preset against a real Codex CLI, first run, pointed at the fake
// Responses API (testdata/fakes/modelapi), whose model asks, in turn, for
// find -delete in the project and git branch -D main (left to a person, who
// refuses each with Esc), for ls -la of the project twice (approved by label,
// each time, although Codex draws both dialogs on the same rows), and for
// rm -rf of a folder outside the project (refused by the danger rule). Each
// refusal ends Codex's turn; the nudge, typed and then submitted, takes it on.
// Codex's shared background server must end with the run.
func TestPresetDrivesRealCodex(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Codex CLI from npm; skipped with -short")
	}
	codex := agenttest.InstallFromNPM(t, "@openai/codex", codexVersion, "codex")
	clai := testprog.BuildCommand(t, "./cmd/clai")
	fake := testprog.Build(t, "modelapi")

	s := newCodexSession(t)
	find := "find " + filepath.Join(s.proj, "sub") + " -delete"
	branch := "git branch -D main"
	ls := "ls -la " + s.proj
	rmOut := "rm -rf " + s.outside
	requests := filepath.Join(s.root, "requests.log")
	api, stopFake := agenttest.StartFakeAPI(t, fake, []string{"-addr", "127.0.0.1:0", "-log", requests,
		"-done", "SCRIPT-DONE", find, branch, ls, ls, rmOut})
	s.writeConfig(t, api)

	answered, stopWatch := s.answerPerson(clai, map[string]string{find: "esc", branch: "esc"})
	rep, err := s.run(t, clai, codex)
	seen := stopWatch()
	stopFake()
	if err != nil {
		t.Fatal(err)
	}
	reqs := readCodexRequests(t, requests)
	t.Logf("the person answered: %v", seen)

	if rep.Outcome != "done" || rep.ExitCode != 0 {
		t.Errorf("outcome %q, exit %d (%s), want done, 0; timeline:\n%s", rep.Outcome, rep.ExitCode, rep.Reason, rep.timeline())
	}
	want := map[string]int{
		"trust-folder": 1, "approve-read-only": 2, "exit-when-done": 1,
		"rm-rf-outside": 1, "sudo": 0, "curl-pipe-shell": 0, "force-push": 0, "drop-database": 0,
	}
	for rule, n := range want {
		if rep.Rules[rule] != n {
			t.Errorf("rule %s fired %d times, want %d", rule, rep.Rules[rule], n)
		}
	}
	// Both ls -la dialogs, drawn on the same rows, approved by the rule, and
	// nothing else.
	approved := map[string]int{}
	for _, e := range rep.Timeline {
		if e.Event == "send" && e.Rule == "approve-read-only" {
			approved[dialogCommand(e.Excerpt)]++
		}
	}
	if approved[ls] != 2 || len(approved) != 1 {
		t.Errorf("approve-read-only approved %v, want %s twice", approved, ls)
	}
	if q := dialogQuestion(rep.Questions, ls); q != nil {
		how := "still open"
		if q.Closed != nil {
			how = q.Closed.How
		}
		t.Errorf("question %s (%s) was opened on a dialog for %s, which the preset approves: it reaches every channel for nothing\n%s", q.ID, how, ls, rep.timeline())
	}
	if !rep.sent("rm-rf-outside", "keys esc") {
		t.Errorf("rm-rf-outside did not refuse with Esc; timeline:\n%s", rep.timeline())
	}

	// find -delete and git branch -D were left to a person: nothing approved
	// them, a question was opened for each and answered (Esc), and they
	// never ran.
	for _, cmd := range []string{find, branch} {
		for _, e := range rep.Timeline {
			if e.Event == "send" && e.Rule != "" && strings.Contains(e.Excerpt, cmd) {
				t.Errorf("rule %s sent %q on the dialog for %s", e.Rule, e.Sent, cmd)
			}
		}
		if q := dialogQuestion(rep.Questions, cmd); q == nil {
			t.Errorf("no question was opened for the dialog for %s", cmd)
		} else if q.Closed == nil || q.Closed.How != ask.Answered {
			t.Errorf("the question for %s was not answered: %+v", cmd, q.Closed)
		}
		if !answered[cmd] {
			t.Errorf("the person never saw a question for %s", cmd)
		}
	}
	if _, err := os.Stat(filepath.Join(s.proj, "sub", "keep.txt")); err != nil {
		t.Errorf("find -delete ran: %v", err)
	}
	if out, err := exec.Command("git", "-C", s.proj, "rev-parse", "--verify", "--quiet", "refs/heads/main").CombinedOutput(); err != nil {
		t.Errorf("git branch -D main ran: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(s.outside, "marker")); err != nil {
		t.Errorf("rm -rf outside the project ran: %v", err)
	}

	// What Codex told the model: the prompt given after "--", both ls -la
	// runs, each refusal ("aborted by user"), and a nudge after each refusal,
	// each a user message "continue" of its own.
	if !reqs.userSaid(codexPrompt) {
		t.Errorf("the model never got the prompt %q", codexPrompt)
	}
	if n := reqs.outputs(ls, "Process exited with code 0"); n != 2 {
		t.Errorf("the model got %d results of %s that ran, want 2", n, ls)
	}
	for _, cmd := range []string{find, branch, rmOut} {
		if n := reqs.outputs(cmd, "aborted by user"); n != 1 {
			t.Errorf("the model got %d refusals of %s, want 1", n, cmd)
		}
	}
	if n := reqs.endingWith("continue"); n != 3 {
		t.Errorf("%d requests end with the nudge \"continue\", want 3 (one per refusal)", n)
	}
	if t.Failed() {
		t.Logf("requests the fake served:\n%s", reqs.summary())
		t.Logf("timeline:\n%s", rep.timeline())
		for _, q := range rep.Questions {
			t.Logf("question %s (%s) %q closed %+v on:\n%s", q.ID, q.Reason, q.Text, q.Closed, q.Screen)
		}
		s.keepArtifacts(t, "report.json", "log.jsonl", "requests.log")
	}

	// Nothing Codex started outlives the run: its shared background server
	// (codex app-server --managed-daemon, and its updater) leaves Codex's
	// session with setsid.
	if left := s.leftBehind(5 * time.Second); len(left) > 0 {
		t.Errorf("processes left behind after clai exited:\n%s", strings.Join(left, "\n"))
	}
}

// codexSession is one first run of Codex: an empty home, a git project with
// a folder and a branch for dangerous commands to aim at, a folder outside
// it, and a sessions folder of its own for clai answer.
type codexSession struct {
	root, home, proj, outside, runtime string
}

// newCodexSession makes the session's folders under a short temporary path,
// so that every command naming them fits on one line of the dialog.
func newCodexSession(t *testing.T) *codexSession {
	t.Helper()
	root, err := os.MkdirTemp("", "clai-cx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	s := &codexSession{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj"),
		outside: filepath.Join(root, "out"), runtime: filepath.Join(root, "rt")}
	for _, dir := range []string{filepath.Join(s.home, ".codex"), filepath.Join(s.proj, "sub"), s.outside} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(s.runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(s.proj, "README.md"):       "# proj\n",
		filepath.Join(s.proj, "main.go"):         "package main\n",
		filepath.Join(s.proj, "sub", "keep.txt"): "keep\n",
		filepath.Join(s.outside, "marker"):       "must survive\n",
		filepath.Join(s.root, "codex-e2e.yaml"):  codexE2EPlaybook,
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", s.proj, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+s.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	git("branch", "other")
	return s
}

// writeConfig points Codex at the fake Responses API at api, asking before
// any command that leaves the read-only sandbox, with no look for a newer
// release (whose notice would come first where the registry answers). The
// project is not trusted yet: the preset answers the trust dialog.
func (s *codexSession) writeConfig(t *testing.T, api string) {
	t.Helper()
	config := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake"
base_url = %q
env_key = "FAKE_API_KEY"
wire_api = "responses"
`, api+"/v1")
	if err := os.WriteFile(filepath.Join(s.home, ".codex", "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
}

// env is the environment of clai and Codex.
func (s *codexSession) env(codex string) []string {
	env := []string{
		"PATH=" + filepath.Dir(codex) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.home,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"FAKE_API_KEY=x",
		"XDG_RUNTIME_DIR=" + s.runtime,
		"XDG_STATE_HOME=" + filepath.Join(s.root, "state"),
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}

// run drives codex in the project with clai and the e2e playbook, the prompt
// given after "--", and returns clai's report.
func (s *codexSession) run(t *testing.T, clai, codex string) (*e2eReport, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reportFile, logFile := filepath.Join(s.root, "report.json"), filepath.Join(s.root, "log.jsonl")
	cmd := exec.CommandContext(ctx, clai, "run", "-q", "--report", reportFile, "--log", logFile,
		filepath.Join(s.root, "codex-e2e.yaml"), "--", codexPrompt)
	// Past the deadline, SIGHUP: clai ends Codex and still writes the report.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGHUP) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = s.proj
	cmd.Env = s.env(codex)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	rep, log, err := readRunReport(reportFile, logFile, runErr, out.Bytes())
	if err == nil && runErr != nil {
		t.Logf("clai run: %v\n%s\nlog:\n%s", runErr, out.Bytes(), log)
	}
	return rep, err
}

// keepArtifacts copies the run's files to the test's artifact folder (kept
// with go test -artifacts).
func (s *codexSession) keepArtifacts(t *testing.T, names ...string) {
	t.Helper()
	dir := t.ArtifactDir()
	for _, name := range names {
		if data, err := os.ReadFile(filepath.Join(s.root, name)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
	}
	t.Logf("the run's report, log and requests: %s", dir)
}

// answerPerson plays the person at the keyboard while the run goes on (see
// person.answer): the keys given for a command answer its dialog, and a
// dialog the preset should have answered gets "Yes, proceed (y)".
func (s *codexSession) answerPerson(clai string, keys map[string]string) (map[string]bool, func() []string) {
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+s.runtime, "XDG_STATE_HOME="+filepath.Join(s.root, "state"))
	return person{clai: clai, env: env, command: dialogCommand, proceed: "Yes, proceed (y)"}.answer(keys)
}

// dialogCommand returns the command of the approval dialog on screen (its
// "$ " line), or "".
func dialogCommand(screen string) string {
	if !strings.Contains(screen, "run the following command?") {
		return ""
	}
	cmd := ""
	for _, l := range strings.Split(screen, "\n") {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), "$ "); ok {
			cmd = strings.TrimSpace(c)
		}
	}
	return cmd
}

// dialogQuestion returns the question opened on the approval dialog for cmd.
func dialogQuestion(qs []ask.Question, cmd string) *ask.Question {
	q, _ := questionOn(qs, dialogCommand, cmd)
	return q
}

// leftBehind lists the processes still running, once wait has passed,
// whose home is the session's or whose working folder is in it: Codex's own,
// its background server's, the commands it ran.
func (s *codexSession) leftBehind(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		var left []string
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, dir := range dirs {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			if pid == os.Getpid() {
				continue
			}
			env, _ := os.ReadFile(filepath.Join(dir, "environ"))
			cwd, _ := os.Readlink(filepath.Join(dir, "cwd"))
			if !slices.Contains(strings.Split(string(env), "\x00"), "HOME="+s.home) &&
				cwd != s.root && !strings.HasPrefix(cwd, s.root+"/") {
				continue
			}
			if stat, err := os.ReadFile(filepath.Join(dir, "stat")); err == nil && isZombie(stat) {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
			left = append(left, fmt.Sprintf("%d %s (cwd %s)", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte(" ")), cwd))
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// isZombie reports whether a /proc/PID/stat line is a zombie's.
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// codexRequests are the requests the fake Responses API logged, in order.
type codexRequests []codexRequest

// codexRequest is the part of a Responses API request the test reads.
type codexRequest struct {
	Text  json.RawMessage `json:"text"` // structured output: Codex's title request
	Input []struct {
		Type      string `json:"type"`
		Role      string `json:"role"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
		Output    any    `json:"output"`
		Content   []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
}

// readCodexRequests reads the fake's request log: "=== METHOD URL" lines,
// each followed by the request's body on one line.
func readCodexRequests(t *testing.T, path string) codexRequests {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var reqs codexRequests
	for _, block := range strings.Split(string(data), "=== ")[1:] {
		head, body, _ := strings.Cut(block, "\n")
		if !strings.HasPrefix(head, "POST ") || !strings.Contains(head, "/responses") {
			continue
		}
		var r codexRequest
		if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &r); err != nil {
			t.Fatalf("request %s: %v", head, err)
		}
		if len(r.Text) == 0 || string(r.Text) == "null" {
			reqs = append(reqs, r)
		}
	}
	return reqs
}

// last is the conversation's longest request: every earlier one is a prefix
// of it.
func (rs codexRequests) last() codexRequest {
	var last codexRequest
	for _, r := range rs {
		if len(r.Input) >= len(last.Input) {
			last = r
		}
	}
	return last
}

// userSaid reports whether the user said text, as a message of its own.
func (rs codexRequests) userSaid(text string) bool {
	for _, in := range rs.last().Input {
		if in.Type == "message" && in.Role == "user" && len(in.Content) == 1 && in.Content[0].Text == text {
			return true
		}
	}
	return false
}

// outputs counts the results of the exec_command calls for cmd whose output
// holds what.
func (rs codexRequests) outputs(cmd, what string) int {
	input := rs.last().Input
	calls := map[string]bool{}
	n := 0
	for _, in := range input {
		switch in.Type {
		case "function_call":
			var args struct {
				Cmd string `json:"cmd"`
			}
			if json.Unmarshal([]byte(in.Arguments), &args) == nil && args.Cmd == cmd {
				calls[in.CallID] = true
			}
		case "function_call_output":
			if out, _ := in.Output.(string); calls[in.CallID] && strings.Contains(out, what) {
				n++
			}
		}
	}
	return n
}

// endingWith counts the requests whose last item is the user's message text.
func (rs codexRequests) endingWith(text string) int {
	n := 0
	for _, r := range rs {
		if len(r.Input) == 0 {
			continue
		}
		in := r.Input[len(r.Input)-1]
		if in.Type == "message" && in.Role == "user" && len(in.Content) == 1 && in.Content[0].Text == text {
			n++
		}
	}
	return n
}

// summary is a line per request: its last items, shortened.
func (rs codexRequests) summary() string {
	var b strings.Builder
	for i, r := range rs {
		fmt.Fprintf(&b, "  #%d:", i)
		for _, in := range r.Input[max(0, len(r.Input)-3):] {
			what := in.Type
			switch {
			case in.Type == "message" && len(in.Content) > 0:
				what = in.Role + " " + agenttest.Quote(shorten(in.Content[0].Text, 60))
			case in.Type == "function_call":
				what = "call " + shorten(in.Arguments, 60)
			case in.Type == "function_call_output":
				out, _ := in.Output.(string)
				what = "output " + agenttest.Quote(shorten(out, 60))
			}
			fmt.Fprintf(&b, " [%s]", what)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
