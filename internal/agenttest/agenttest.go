// Package agenttest is what the end-to-end tests of real coding agents
// share, wherever they run clai (its command line, or the human loop in
// process): installing an agent from npm, its fake model server, Claude
// Code's environment and transcripts, the questions its model asks, and
// the checks of a run's report that hold for every agent.
package agenttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
)

// ClaudeCodeVersion is the release of Claude Code the claude-code preset is
// checked against end to end.
const ClaudeCodeVersion = "2.1.197"

// Questions for the fake model's AskUserQuestion calls (its -ask flag takes
// {"questions": [...]}), and the start of the tool_result Claude Code sends
// back once they are answered.
const (
	AskColour   = `{"header":"Colour","question":"Which colour do you want?","multiSelect":false,"options":[{"label":"Red","description":"Warm and loud"},{"label":"Blue","description":"Calm and cool"}]}`
	AskTools    = `{"header":"Tools","question":"Which tools should I set up?","multiSelect":true,"options":[{"label":"Lint","description":"golangci-lint"},{"label":"Format","description":"gofmt on save"},{"label":"Test","description":"go test in CI"}]}`
	AskLicence  = `{"header":"Licence","question":"Which licence?","multiSelect":false,"options":[{"label":"MIT","description":"Short"},{"label":"Apache-2.0","description":"Patents"}]}`
	ResultStart = "Your questions have been answered: "
)

// InstallFromNPM installs version of the npm package pkg into a temporary
// prefix and returns the path of its command bin, once bin --version printed
// a line that holds version. When npm is missing, the registry cannot be
// reached or the package does not install or start, the test is
// testprog.Missing: skipped, or failed where .ci/run requires the e2e tier.
func InstallFromNPM(t testing.TB, pkg, version, bin string) string {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		testprog.Missing(t, format, args...)
	}
	npm := testprog.RequireProgram(t, "npm", "npm")
	spec := pkg + "@" + version
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, npm, "view", spec, "version").Output(); err != nil ||
		strings.TrimSpace(string(out)) != version {
		skip("npm view %s: %q, %v (registry unreachable?)", spec, out, err)
	}
	prefix := t.TempDir()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", spec)
	if out, err := install.CombinedOutput(); err != nil {
		skip("npm install %s: %v\n%s", spec, err, out)
	}
	path := filepath.Join(prefix, "node_modules", ".bin", bin)
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), version) {
		skip("%s --version: %v: %s (did npm skip the package's install script?)", path, err, out)
	}
	return path
}

// InstallClaudeCode installs Claude Code ClaudeCodeVersion from npm and
// returns the path of its claude command (see InstallFromNPM).
func InstallClaudeCode(t testing.TB) string {
	t.Helper()
	return InstallFromNPM(t, "@anthropic-ai/claude-code", ClaudeCodeVersion, "claude")
}

// ClaudeCodeEnv is the environment of a first run of Claude Code at claude,
// in the empty home home, against the Messages API at api: nothing reaches
// the network, nothing updates itself.
func ClaudeCodeEnv(home, claude, api string) []string {
	env := []string{
		"PATH=" + filepath.Dir(claude) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + api,
		// A token, not ANTHROPIC_API_KEY: with an API key, 2.1.197's first
		// run checks api.anthropic.com itself after the theme picker, base URL
		// or not, and stops at "Unable to connect to Anthropic services".
		"ANTHROPIC_AUTH_TOKEN=dummy",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	return env
}

// StartFakeAPI starts the fake model server fake (a program of testdata/fakes)
// with the script flags and returns its base URL, and a function that stops
// it and returns what it logged (a line per request). It stops when the
// test ends.
func StartFakeAPI(t testing.TB, fake string, script []string) (url string, served func() string) {
	t.Helper()
	cmd := exec.Command(fake, script...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	first, err := r.ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(first), "listening on ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("fake API: %q, %v", first, err)
	}
	var log bytes.Buffer
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(&log, r)
		close(copied)
	}()
	stop := sync.OnceValue(func() string {
		_ = cmd.Process.Kill()
		<-copied
		_ = cmd.Wait()
		return "\n" + log.String()
	})
	t.Cleanup(func() { stop() })
	return url, stop
}

// Quote is s as a JSON string, as the fake model server logs a text.
func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TranscriptResult returns the text of the tool_result for the call id in
// the Claude Code transcripts under home.
func TranscriptResult(t testing.TB, home, id string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			var l struct {
				Message struct {
					Content []struct {
						Type      string `json:"type"`
						ToolUseID string `json:"tool_use_id"`
						Content   string `json:"content"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(line), &l) != nil {
				continue
			}
			for _, b := range l.Message.Content {
				if b.Type == "tool_result" && b.ToolUseID == id {
					return b.Content
				}
			}
		}
	}
	t.Fatalf("no tool_result for %s in %s", id, files)
	return ""
}

// NeedlessMarks begin a line of the screens Claude Code shows where the run
// has nobody to ask: the folder-trust dialog, which the preset answers and
// which stays a moment after, drawn answered; and the screen it leaves at
// its exit, which says how to resume the session.
func NeedlessMarks() []string {
	return []string{"Quick safety check:", "Is this a project you created or one you trust?", "claude --resume"}
}

// CheckTypedOnSight fails t if the keystrokes of an answer to Claude Code's
// dialog were given up, the screen never showing what they waited for (one
// of the reasons of the report's timeline says so): the typist's marks no
// longer match what Claude Code draws.
func CheckTypedOnSight(t testing.TB, reasons []string) {
	t.Helper()
	for _, r := range reasons {
		if strings.Contains(r, "of the answer") && strings.Contains(r, "is not typed") {
			t.Errorf("an answer's keystrokes were not typed: %s", r)
		}
	}
}

// CheckToolDialogAskedOnce fails t if the run opened a question of its own
// (a prompt) for Claude Code's question dialog, whose questions the question
// source asks: it would reach every channel a second time, and an answer to
// it would be typed into the dialog. The dialog is a screen that shows its
// footer, its review of several answers, or a question of the tool, at the
// start of a line. A prompt question for the trust dialog or the exit screen
// (NeedlessMarks) fails t too: it would wake every channel for nothing.
// Other prompt questions are logged.
func CheckToolDialogAskedOnce(t testing.TB, questions []ask.Question) {
	t.Helper()
	marks := append([]string{"Enter to select ·", "Review your answers"}, NeedlessMarks()...)
	for _, q := range questions {
		if q.Reason == ask.Tool {
			marks = append(marks, q.Text)
		}
	}
	for _, q := range questions {
		if q.Reason == ask.Tool {
			continue
		}
		how := "open"
		if q.Closed != nil {
			how = q.Closed.How
		}
		report := t.Logf
		if ShowsLineStart(q.Screen, marks) {
			report = t.Errorf
		}
		report("the run opened question %s why %q (%s) for the screen:\n%s", q.ID, q.Reason, how, q.Screen)
	}
}

// ShowsLineStart reports whether a line of screen begins with one of marks.
func ShowsLineStart(screen string, marks []string) bool {
	for _, l := range strings.Split(screen, "\n") {
		for _, m := range marks {
			if strings.HasPrefix(strings.TrimSpace(l), m) {
				return true
			}
		}
	}
	return false
}
