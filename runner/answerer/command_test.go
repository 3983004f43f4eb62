package answerer_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/runner/answerer"
)

// script writes a shell script that acts as a model command, and returns
// the command line that runs it: sh reads the script, which is never
// executed itself, so that a write of it still open in a process another
// test forks at that moment cannot make its exec fail ("text file busy").
func script(t *testing.T, body string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model")
	if err := os.WriteFile(path, []byte(body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"/bin/sh", path}
}

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Context(), d)
}

func TestCommandModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	got := filepath.Join(dir, "request.json")
	m := &answerer.Command{Argv: append(script(t, `cat > "$1"; echo '{"answer": "Y", "confidence": 0.97, "reason": "safe"}'`), got)}
	r, err := m.Ask(t.Context(), answerer.Request{Question: "Continue? [Y/n]", Options: []string{"Y", "n"}, Playbook: answerer.Playbook{Name: "p"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Answer != "Y" || r.Confidence != 0.97 {
		t.Errorf("reply %+v", r)
	}
	var req answerer.Request
	data, _ := os.ReadFile(got)
	if err := json.Unmarshal(data, &req); err != nil || req.Question != "Continue? [Y/n]" || req.Playbook.Name != "p" {
		t.Errorf("the command read %s (%v)", data, err)
	}
}

func TestCommandModelFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, want string }{
		{"garbage", `echo 'beep boop'`, "no JSON object"},
		{"an exit status", `echo 'quota exceeded' >&2; exit 3`, "exit status 3: quota exceeded"},
		{"a flood", `yes '{{{{'`, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := &answerer.Command{Argv: script(t, tc.body)}
			_, err := m.Ask(t.Context(), answerer.Request{Question: "Continue?"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// A command that hangs is killed with what it started when its time is up:
// the call returns although a grandchild holds its stdout.
func TestCommandModelThatHangsIsKilled(t *testing.T) {
	t.Parallel()
	m := &answerer.Command{Argv: script(t, `sleep 600 & sleep 600`)}
	ctx, cancel := contextWithTimeout(t, 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := m.Ask(ctx, answerer.Request{Question: "Continue?"}); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "killed") {
			t.Errorf("error %v, want killed", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call of a hanging command did not end")
	}
}

// A command model is named as a person would recognise it: the program and
// its script, subcommand or model, each bounded, never a credential.
func TestCommandModelName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		argv    []string
		secrets []string
		want    string
	}{
		{[]string{"python3", "ask.py"}, nil, "command python3 ask.py"},
		{[]string{"/usr/bin/python3", "-u", "/home/me/models/ask.py", "--fast"}, nil, "command python3 ask.py"},
		{[]string{"llm", "-m", "gpt-4o"}, nil, "command llm gpt-4o"},
		{[]string{"claude", "-p"}, nil, "command claude"},
		{[]string{"ask", "--api-key", "sk-live-1234", "wrapper.sh"}, nil, "command ask wrapper.sh"},
		{[]string{"ask", "--token=abc", "run"}, nil, "command ask run"},
		{[]string{"ask", "sk-live-1234"}, []string{"sk-live-1234"}, "command ask " + redact.Mask},
		{[]string{"ask", "a\x1b[2Jb\u202e" + strings.Repeat("x", 60)}, nil, "command ask a [2Jb " + strings.Repeat("x", 32) + "…"},
	} {
		if got := (&answerer.Command{Argv: tc.argv, Secrets: tc.secrets}).Name(); got != tc.want {
			t.Errorf("the name of %q is %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// A reply that is no JSON, or whose answer cannot be typed, is kept in the
// error as a bounded excerpt: secrets masked, control characters escaped.
func TestCommandModelQuotesAnUnusableReply(t *testing.T) {
	t.Parallel()
	m := &answerer.Command{
		Argv:    script(t, `printf 'Error: model sk-live-1234 is\033[31m down\n'; yes 'more text' | head -c 4000`),
		Secrets: []string{"sk-live-1234"},
	}
	_, err := m.Ask(t.Context(), answerer.Request{Question: "Continue?"})
	var re *answerer.ReplyError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "no JSON object") {
		t.Fatalf("error %v, want a *ReplyError saying no JSON object", err)
	}
	want := `Error: model ` + redact.Mask + ` is\u001B[31m down\nmore text\nmore text`
	if !strings.HasPrefix(re.Excerpt, want) || !strings.HasSuffix(re.Excerpt, "…") || len([]rune(re.Excerpt)) > answerer.MaxExcerpt+1+40 {
		t.Errorf("excerpt %q (%d characters), want it to start %q and be cut", re.Excerpt, len([]rune(re.Excerpt)), want)
	}
	if strings.Contains(re.Excerpt, "sk-live") || strings.ContainsAny(re.Excerpt, "\x1b\n") {
		t.Errorf("excerpt %q shows a secret or a control character", re.Excerpt)
	}
}

// The request always says whether a summary is wanted, false included, as
// docs/answerer.md shows it.
func TestRequestAlwaysSaysSummarize(t *testing.T) {
	t.Parallel()
	data, err := json.Marshal(answerer.Request{Question: "Continue?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"summarize":false`) {
		t.Errorf("the request %s does not say summarize: false", data)
	}
}
