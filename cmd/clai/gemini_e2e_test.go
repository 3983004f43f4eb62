//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/agenttest"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
)

// geminiVersion is the release of Gemini CLI the gemini preset is checked
// against end to end.
const geminiVersion = "0.61.0"

// geminiPrompt is the first prompt, typed into Gemini CLI's input box (or
// given with -i).
const geminiPrompt = "Clean up the project."

// geminiPlaybook is the gemini preset plus what a person at the keyboard
// would do in the scripted conversation: type the first prompt, and leave
// with /quit once the fake model has said its last word. The commands the
// preset leaves to a person are answered from outside with clai answer. The
// nudge comes after 4 s of silence instead of 10 min, so that each refusal,
// which ends Gemini CLI's turn, is followed by a "continue" within the test.
// The terminal is 120x40, the size of the recorded screens the preset is
// checked against (testdata/screens/gemini-0.61.0).
const geminiPlaybook = `version: 1
name: gemini-e2e
extends: gemini
spawn: {command: [gemini], size: {rows: 40, cols: 120}}
timeouts: {idle: 4s, prompt: 30s, total: 90s}
nudge: {gap: 3s}
steps:
  - expect: "Type your message or @path/to/file"
    line: "` + geminiPrompt + `"
rules:
  - name: exit-when-done
    match: "SCRIPT-DONE"
    line: "/quit"
    limit: 1
`

// geminiAtOncePlaybook is the gemini preset unchanged but for its settle
// time. Gemini CLI started with -i in a folder it does not trust draws its
// trust dialog first and the approval of the model's first command 0.5 to
// 1.1 s later, above it; a settle longer than that makes clai decide only on
// the screen that shows both.
const geminiAtOncePlaybook = `version: 1
name: gemini-e2e-at-once
extends: gemini
spawn: {command: [gemini], size: {rows: 40, cols: 120}}
settings: {settle: 3s}
timeouts: {prompt: 30s, total: 45s}
`

// geminiSettings is ~/.gemini/settings.json for an offline run: the API key
// from GEMINI_API_KEY, no auto-update, usage statistics, telemetry or IDE
// mode (the keys of Gemini CLI 0.61.0's settings schema).
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "ide": {"enabled": false, "hasSeenNudge": true}
}
`

// The preset against a real Gemini CLI, first run, pointed at the fake
// Gemini API (testdata/fakes/modelapi).
//
// In the first subtest clai trusts the folder, types the first prompt, leaves
// find -delete and git branch -D main to a person (the test answers each with
// Esc through clai answer), approves a read-only command twice by label,
// refuses rm -rf outside the project with Esc, nudges with "continue" after
// each refusal (which ends Gemini CLI's turn), and quits once the fake says
// SCRIPT-DONE. Gemini CLI 0.61.0 runs ls, cat, grep and git status, log,
// diff and show inside the project without asking, so the read-only command
// is git ls-files, which it does ask about, twice: the second dialog is drawn
// the same on the rows of the first, and is approved as a new question.
//
// In the second, Gemini CLI is started with -i in a folder it does not trust:
// its trust dialog and the approval of git branch -D main show at once, and
// a key pressed there goes to the approval. clai must press nothing and hand
// over; the command never runs.
func TestPresetDrivesRealGemini(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Gemini CLI from npm; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the test's project is a git repository")
	}
	gemini := agenttest.InstallFromNPM(t, "@google/gemini-cli", geminiVersion, "gemini")
	clai := testprog.BuildCommand(t, "./cmd/clai")
	fake := testprog.Build(t, "modelapi")

	t.Run("approvals", func(t *testing.T) {
		s := newGeminiSession(t, geminiPlaybook)
		find := "find " + filepath.Join(s.proj, "sub") + " -delete"
		branch := "git branch -D main"
		lsFiles := "git ls-files"
		rm := "rm -rf " + s.outside
		api, served := agenttest.StartFakeAPI(t, fake, []string{"-addr", "127.0.0.1:0", "-log", s.fakeLog,
			"-done", "SCRIPT-DONE", find, branch, lsFiles, lsFiles, rm})
		answered := map[string]string{} // command → the question answered with Esc
		rep, err := s.run(t, clai, gemini, api, 100*time.Second, func() {
			s.escape(t, answered, find, branch)
		})
		served()
		if err != nil {
			t.Fatal(err)
		}
		reqs := s.requests(t)

		if rep.Outcome != "done" || rep.ExitCode != 0 {
			t.Errorf("outcome %q, exit %d (%s), want done, 0", rep.Outcome, rep.ExitCode, rep.Reason)
		}
		want := map[string]int{
			"trust-folder": 1, "approve-read-only": 2, "approve-edits": 0, "exit-when-done": 1,
			"rm-rf-outside": 1, "sudo": 0, "curl-pipe-shell": 0, "force-push": 0,
		}
		for rule, n := range want {
			if rep.Rules[rule] != n {
				t.Errorf("rule %s fired %d times, want %d", rule, rep.Rules[rule], n)
			}
		}
		if n := rep.sendsOn("approve-read-only", "│ ? Shell  "+lsFiles+"  "); n != 2 {
			t.Errorf("approve-read-only sent %d times on the dialog for %s, want 2; timeline:\n%s", n, lsFiles, rep.timeline())
		}
		if !rep.sent("rm-rf-outside", "keys esc") {
			t.Errorf("rm-rf-outside did not refuse with Esc; timeline:\n%s", rep.timeline())
		}
		if !rep.refusedOn("rm-rf-outside", "│ ? Shell  "+rm) {
			t.Errorf("rm-rf-outside did not refuse on the dialog for %s; timeline:\n%s", rm, rep.timeline())
		}
		for _, c := range []string{find, branch} {
			if answered[c] == "" {
				t.Errorf("no question for %q was open to answer; questions:\n%s", c, rep.questions())
			}
		}

		// What the fake model saw: the first prompt and the nudges, as
		// typed; results of the two git ls-files only.
		if n := reqs.prompts(geminiPrompt); n == 0 {
			t.Errorf("the first prompt %q never reached the model (prompts seen: %q)", geminiPrompt, reqs.allPrompts())
		}
		if n := reqs.prompts("continue"); n != 3 {
			t.Errorf("the model got %d nudges (\"continue\"), want 3, one after each refusal (prompts seen: %q)", n, reqs.allPrompts())
		}
		results := reqs.results()
		if results[lsFiles] != 2 {
			t.Errorf("the model got %d results of %s, want 2 (results: %v)", results[lsFiles], lsFiles, results)
		}
		for _, c := range []string{find, branch, rm} {
			if results[c] != 0 {
				t.Errorf("the model got a result of %s, which was refused (results: %v)", c, results)
			}
		}
		s.checkIntact(t)
		s.checkNoneLeft(t)
	})

	t.Run("trust dialog and approval at once", func(t *testing.T) {
		s := newGeminiSession(t, geminiAtOncePlaybook)
		branch := "git branch -D main"
		api, served := agenttest.StartFakeAPI(t, fake, []string{"-addr", "127.0.0.1:0", "-log", s.fakeLog,
			"-done", "SCRIPT-DONE", branch})
		rep, err := s.run(t, clai, gemini, api, 60*time.Second, nil, "-i", geminiPrompt)
		served()
		if err != nil {
			t.Fatal(err)
		}
		reqs := s.requests(t)

		if rep.Outcome != "manual" || rep.ExitCode != 4 {
			t.Errorf("outcome %q, exit %d (%s), want manual, 4 (handed over)", rep.Outcome, rep.ExitCode, rep.Reason)
		}
		// The hand-over names both dialogs by their options.
		if !rep.handedOverNaming("Trust folder (proj)", "Allow once") {
			t.Errorf("the run did not hand over on the screen with both dialogs; timeline:\n%s", rep.timeline())
		}
		for _, e := range rep.Timeline {
			if e.Event == "send" {
				t.Errorf("clai sent %q (rule %s) on the screen:\n%s", e.Sent, e.Rule, e.Screen)
			}
		}
		if n := reqs.prompts(geminiPrompt); n == 0 {
			t.Errorf("the -i prompt %q never reached the model (prompts seen: %q)", geminiPrompt, reqs.allPrompts())
		}
		if results := reqs.results(); len(results) != 0 {
			t.Errorf("the model got results %v, want none: the command ran", results)
		}
		s.checkIntact(t)
		s.checkNoneLeft(t)
	})
}

// geminiSession is one first run of Gemini CLI: an empty home but for its
// settings, a git project (on branch work, with main beside it and a folder
// sub), a folder outside it, and a sessions folder of its own.
type geminiSession struct {
	root, home, proj, outside string
	playbook, fakeLog         string
	sessions                  *sessionsEnv
}

// newGeminiSession makes the session's folders under a short temporary path,
// so that the commands naming them fit on one line of the dialog.
func newGeminiSession(t *testing.T, playbook string) *geminiSession {
	t.Helper()
	root, err := os.MkdirTemp("", "clai-gm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	s := &geminiSession{
		root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj"),
		outside: filepath.Join(root, "out"), playbook: filepath.Join(root, "gemini-e2e.yaml"),
		fakeLog: filepath.Join(root, "requests.log"),
	}
	files := map[string]string{
		filepath.Join(s.home, ".gemini", "settings.json"): geminiSettings,
		filepath.Join(s.proj, "README.md"):                "hi\n",
		filepath.Join(s.proj, "sub", "keep.txt"):          "keep\n",
		filepath.Join(s.outside, "marker"):                "must survive\n",
		s.playbook:                                        playbook,
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
		{"checkout", "-q", "-b", "work"}, // so that git branch -D main would delete main
	} {
		s.git(t, args...)
	}
	runtime := filepath.Join(root, "rt")
	if err := os.Mkdir(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	s.sessions = &sessionsEnv{
		bin:     testprog.BuildCommand(t, "./cmd/clai"),
		env:     append(os.Environ(), "XDG_RUNTIME_DIR="+runtime, "XDG_STATE_HOME="+root),
		runtime: runtime,
		dir:     root,
	}
	return s
}

// git runs git in the project, with the session's home, and returns its output.
func (s *geminiSession) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.proj
	cmd.Env = append(os.Environ(), "HOME="+s.home, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// run drives gemini (with args) in the project with clai and the session's
// playbook, against the Gemini API at api, and returns clai's report. While
// clai runs, poll is called every 100 ms.
func (s *geminiSession) run(t *testing.T, clai, gemini, api string, limit time.Duration, poll func(), args ...string) (*e2eReport, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	reportFile, logFile := filepath.Join(s.root, "report.json"), filepath.Join(s.root, "log.jsonl")
	cmd := exec.CommandContext(ctx, clai, append([]string{"run", "-q", "--report", reportFile, "--log", logFile,
		s.playbook, "--"}, args...)...)
	// Past the deadline, SIGHUP: clai ends Gemini CLI and still writes the
	// report.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGHUP) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = s.proj
	cmd.Env = []string{
		// Gemini CLI is a node script: node comes from the PATH.
		"PATH=" + filepath.Dir(gemini) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.home,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"GEMINI_API_KEY=fake",
		"GOOGLE_GEMINI_BASE_URL=" + api,
		"XDG_RUNTIME_DIR=" + s.sessions.runtime,
		"XDG_STATE_HOME=" + s.root,
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var runErr error
	for running := true; running; {
		select {
		case runErr = <-exited:
			running = false
		case <-time.After(100 * time.Millisecond):
			if poll != nil {
				poll()
			}
		}
	}
	rep, log, err := readRunReport(reportFile, logFile, runErr, out.Bytes())
	if err != nil {
		return nil, err
	}
	if runErr != nil || t.Failed() {
		t.Logf("clai run: %v\n%s", runErr, out.Bytes())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("clai's event log:\n%s", log)
		}
	})
	return rep, nil
}

// escape answers with Esc, through clai answer, each open question of the
// run whose screen shows the approval dialog of one of commands, once per
// command; answered maps each command to the question answered.
func (s *geminiSession) escape(t *testing.T, answered map[string]string, commands ...string) {
	t.Helper()
	stdout, stderr, code := s.sessions.clai(t, "sessions", "--json")
	if code != 0 {
		return // the run is ending
	}
	var list []ask.Session
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("clai sessions --json: %v\n%s%s", err, stdout, stderr)
	}
	for _, sess := range list {
		q := sess.Question
		if q == nil {
			continue
		}
		for _, c := range commands {
			if answered[c] != "" || !strings.Contains(q.Screen, "│ ? Shell  "+c+" ") ||
				!strings.Contains(q.Screen, "Allow execution of [Shell]?") {
				continue
			}
			stdout, stderr, code := s.sessions.clai(t, "answer", "--question", q.ID, sess.ID, "--keys", "esc")
			if code == 0 {
				answered[c] = q.ID
			} else {
				t.Logf("clai answer --keys esc for %s (question %s): exit %d\n%s%s", c, q.ID, code, stdout, stderr)
			}
		}
	}
}

// checkIntact fails t when a refused command did what it would have: sub
// deleted in the project, its branch main deleted, the folder outside it
// removed.
func (s *geminiSession) checkIntact(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(s.proj, "sub", "keep.txt")); err != nil {
		t.Errorf("the project's sub folder lost its file: %v", err)
	}
	if branches := s.git(t, "branch", "--list", "main"); !strings.Contains(branches, "main") {
		t.Errorf("the project's branch main is gone")
	}
	if _, err := os.Stat(filepath.Join(s.outside, "marker")); err != nil {
		t.Errorf("the marker outside the project is gone: %v", err)
	}
}

// checkNoneLeft fails t when a process of the run (one with the session's
// home in its environment) is still there; Gemini CLI outlives the hangup
// of its terminal. Where there is no /proc it checks nothing.
func (s *geminiSession) checkNoneLeft(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	want := []byte("HOME=" + s.home + "\x00")
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue // a zombie: ended, not yet reaped by its parent
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		t.Errorf("process %s of the run is still there: %s", e.Name(), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
}

// geminiRequests are the Gemini API requests the fake logged (-log): each a
// conversation so far.
type geminiRequests []struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text         *string `json:"text"`
			FunctionCall *struct {
				ID   string `json:"id"`
				Args struct {
					Command string `json:"command"`
				} `json:"args"`
			} `json:"functionCall"`
			FunctionResponse *struct {
				ID string `json:"id"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
}

// requests reads the fake's log: "=== METHOD URL" then the body, for each
// request; only the streamed ones (the conversation, not the router's).
func (s *geminiSession) requests(t *testing.T) geminiRequests {
	t.Helper()
	data, err := os.ReadFile(s.fakeLog)
	if err != nil {
		t.Fatalf("the fake's request log: %v", err)
	}
	var reqs geminiRequests
	for _, chunk := range strings.Split(string(data), "=== ")[1:] {
		head, body, _ := strings.Cut(chunk, "\n")
		if !strings.Contains(head, ":streamGenerateContent") {
			continue
		}
		var one geminiRequests
		if err := json.Unmarshal([]byte("["+body+"]"), &one); err != nil {
			t.Fatalf("request %s: %v\n%s", head, err, body)
		}
		reqs = append(reqs, one...)
	}
	return reqs
}

// allPrompts lists the user's text parts of the last request, Gemini CLI's
// own "<session_context>" left out: every prompt of the conversation.
func (r geminiRequests) allPrompts() []string {
	if len(r) == 0 {
		return nil
	}
	var texts []string
	for _, c := range r[len(r)-1].Contents {
		for _, p := range c.Parts {
			if c.Role == "user" && p.Text != nil && !strings.HasPrefix(*p.Text, "<session_context>") {
				texts = append(texts, *p.Text)
			}
		}
	}
	return texts
}

// prompts counts the prompts of the conversation that read text.
func (r geminiRequests) prompts(text string) int {
	n := 0
	for _, p := range r.allPrompts() {
		if p == text {
			n++
		}
	}
	return n
}

// results counts, per command, the calls of run_shell_command whose result
// was sent to the model in any request.
func (r geminiRequests) results() map[string]int {
	commands := map[string]string{} // call id → command
	sent := map[string]bool{}       // call ids with a result
	for _, req := range r {
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionCall != nil {
					commands[p.FunctionCall.ID] = p.FunctionCall.Args.Command
				}
				if p.FunctionResponse != nil {
					sent[p.FunctionResponse.ID] = true
				}
			}
		}
	}
	n := map[string]int{}
	for id := range sent {
		n[commands[id]]++
	}
	return n
}
