package askuser_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/askuser"
)

// Lines Claude Code writes give their AskUserQuestion calls and results;
// anything else, or a call Claude Code could not show, gives nothing.
func TestParse(t *testing.T) {
	t.Parallel()
	call := `{"type":"assistant","message":{"content":[{"type":"text","text":"hm"},{"type":"tool_use","id":"toolu_1","name":"AskUserQuestion","input":{"questions":[{"header":"H","question":"Q?","multiSelect":true,"options":[{"label":"A","description":"a"},{"label":"B"}]}]}}]}}`
	e := askuser.Parse([]byte(call))
	if len(e.Calls) != 1 || e.Calls[0].ID != "toolu_1" || len(e.Calls[0].Questions) != 1 ||
		!e.Calls[0].Questions[0].MultiSelect || e.Calls[0].Questions[0].Options[0].Description != "a" {
		t.Fatalf("%+v", e)
	}
	result := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}}`
	if e := askuser.Parse([]byte(result)); len(e.Results) != 1 || e.Results[0] != "toolu_1" {
		t.Fatalf("%+v", e)
	}
	for _, garbage := range []string{
		"", "{", "null", `{"type":"user","message":{"content":"plain text"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"AskUserQuestion","input":{"questions":[]}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"AskUserQuestion","input":{"questions":[{"question":"Q","options":[{"label":""}]}]}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"AskUserQuestion","input":"nope"}]}}`,
		`{"type":"system","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]}}`,
	} {
		if e := askuser.Parse([]byte(garbage)); len(e.Calls)+len(e.Results) != 0 {
			t.Errorf("%s: %+v", garbage, e)
		}
	}
}

// The project's folder is named as Claude Code names it; the transcript is
// the session's when its id is known, else the newest changed since the run
// began, also under a long folder name Claude Code shortens with a hash.
func TestTranscripts(t *testing.T) {
	t.Parallel()
	if got := askuser.ProjectDir("/h/.claude", "/tmp/my.proj_1"); got != "/h/.claude/projects/-tmp-my-proj-1" {
		t.Fatalf("project dir %q", got)
	}
	config := t.TempDir()
	dir := "/work/" + strings.Repeat("x", 250)
	if path, err := askuser.Transcripts(config, dir, "", time.Time{}); path != "" || err != nil {
		t.Fatalf("no folder yet: %q, %v", path, err)
	}
	long := filepath.Join(config, "projects", askuser.ProjectDir("", dir)[len("projects/"):][:200]+"-k3h2")
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	old, newer := filepath.Join(long, "1111aaaa-0000.jsonl"), filepath.Join(long, "2222bbbb-0000.jsonl")
	for i, p := range []string{old, newer} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		at := since.Add(time.Duration(i) * time.Second)
		if p == old {
			at = since.Add(-time.Hour)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if path, err := askuser.Transcripts(config, dir, "", since); path != newer || err != nil {
		t.Fatalf("newest: %q, %v", path, err)
	}
	if path, err := askuser.Transcripts(config, dir, "1111aaaa-0000", since); path != old || err != nil {
		t.Fatalf("by id: %q, %v", path, err)
	}
	if _, err := askuser.Transcripts(config, dir, "../../etc/passwd", since); err == nil {
		t.Fatal("a session id with a path in it was taken")
	}
}
