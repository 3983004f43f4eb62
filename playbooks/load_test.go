package playbooks_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/playbooks/pattern"
)

func mustParse(t *testing.T, src string) *playbooks.Playbook {
	t.Helper()
	pb, findings := playbooks.Parse("test.yaml", []byte(src))
	if pb == nil {
		t.Fatalf("parse failed:\n%v", findings)
	}
	return pb
}

func TestShorthandsAndDefaults(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, `
version: 1
name: shorthands
spawn:
  command: [prog, "${HOME}"]
vars: {project: demo, size: "3"}
steps:
  - expect: "Project name:"
    line: "{{ vars.project }}-{{ vars.size }}"
  - expect: {regex: 'Select (?P<what>\w+)'}
    keys: down
  - expect: ["a", {regex: 'b+'}, {literal: eof}]
    keys: [down, enter]
  - expect:
      - case: "not empty"
        keys: [down, enter]
        repeat: true
      - case: [eof, "Done"]
  - expect: eof
`)
	if pb.Settings.Match != playbooks.MatchStream || pb.Settings.Settle != 300*time.Millisecond ||
		pb.Settings.Window != 8<<10 || pb.Settings.MinSendInterval != 200*time.Millisecond {
		t.Errorf("settings defaults: %+v", pb.Settings)
	}
	if pb.Timeouts.Step != 30*time.Second || pb.Timeouts.Prompt != 5*time.Minute || pb.Timeouts.Total != 0 {
		t.Errorf("timeout defaults: %+v", pb.Timeouts)
	}
	if got := pb.Spawn.Command; len(got) != 2 || got[1] != "${HOME}" {
		t.Errorf("command kept unexpanded: %q", got)
	}
	s := pb.Steps
	if len(s) != 5 {
		t.Fatalf("%d steps", len(s))
	}
	if p := s[0].Expect.Patterns[0]; p.Kind != pattern.Literal || p.Source != "Project name:" {
		t.Errorf("plain string is a literal: %+v", p)
	}
	if s[0].Action.Kind != playbooks.ActLine || s[0].Action.Text.IsStatic() {
		t.Errorf("line template: %+v", s[0].Action)
	}
	out, err := s[0].Action.Text.Render(s[0].Env, playbooks.Values{Vars: map[string]string{"project": "x", "size": "9"}})
	if err != nil || out != "x-9" {
		t.Errorf("render = %q, %v", out, err)
	}
	if p := s[1].Expect.Patterns[0]; p.Kind != pattern.Regex || p.Regexp == nil {
		t.Errorf("regex pattern: %+v", p)
	}
	if k := s[1].Action.Keys; len(k) != 1 || k[0] != "down" {
		t.Errorf("keys shorthand: %v", k)
	}
	if ps := s[2].Expect.Patterns; len(ps) != 3 || ps[2].Kind != pattern.Literal || ps[2].Source != "eof" {
		t.Errorf("any-of list: %+v", ps)
	}
	if c := s[3].Cases; len(c) != 2 || !c[0].Repeat || !c[1].Match.HasEOF() {
		t.Errorf("cases: %+v", c)
	}
	if s[4].Expect.Patterns[0].Kind != pattern.EOF {
		t.Errorf("eof keyword: %+v", s[4].Expect.Patterns[0])
	}
	if pb.Steps[0].Line != 8 || pb.Steps[0].Col != 5 {
		t.Errorf("step position %d:%d, want 8:5", pb.Steps[0].Line, pb.Steps[0].Col)
	}
}

func TestRulesDangerNudgeTests(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, `
version: 1
name: full
spawn: {shell: "./install.sh", dir: sub, env: {CI: "", X: "${Y:-z}"}, size: {rows: 40, cols: 120}}
timeouts: {total: 10m, idle: 15s}
rules:
  - name: overwrite
    match: {regex: 'Overwrite (?P<file>\S+)\? \[y/N\]'}
    when: 'match.file endsWith ".md"'
    line: "y"
    cooldown: 2s
    limit: 20
  - name: token
    match: "Token:"
    secret: env:API_TOKEN
    limit: 1
danger:
  - name: wipe
    match: {regex: 'rm\s+-rf\s+/(\s|$)'}
    examples: ["rm -rf /"]
  - name: sudo
    match: "sudo "
    action: deny
    keys: [esc]
nudge: {sequence: ["\r"], gap: 1s}
tests:
  - name: t
    output: "Overwrite a.md? [y/N] "
    expect: {state: running, sent: "y\r", fired: [overwrite], exit: 0}
`)
	r := pb.Rules[0]
	if r.Cooldown != 2*time.Second || r.Limit != 20 || r.When == nil {
		t.Fatalf("rule: %+v", r)
	}
	vals := playbooks.Values{Text: "Overwrite a.md? [y/N]", Named: map[string]string{"file": "a.md"}}
	if ok, err := r.When.Eval(r.Env, vals); err != nil || !ok {
		t.Errorf("when on a.md = %v, %v", ok, err)
	}
	vals.Named["file"] = "a.go"
	if ok, _ := r.When.Eval(r.Env, vals); ok {
		t.Errorf("when on a.go = true")
	}
	if a := pb.Rules[1].Action; a.Kind != playbooks.ActSecret || a.Secret.Source != playbooks.SecretEnv || a.Secret.Name != "API_TOKEN" {
		t.Errorf("secret: %+v", a)
	}
	if pb.Danger[0].Action != playbooks.DangerManual || pb.Danger[0].Refusal != nil {
		t.Errorf("danger default action: %+v", pb.Danger[0])
	}
	if d := pb.Danger[1]; d.Action != playbooks.DangerDeny || d.Refusal.Kind != playbooks.ActKeys {
		t.Errorf("deny: %+v", d)
	}
	if n := pb.Nudge; n.Max != 3 || n.Gap != time.Second || len(n.Sequence) != 1 {
		t.Errorf("nudge defaults: %+v", n)
	}
	e := pb.Tests[0].Expect
	if *e.State != "running" || *e.Sent != "y\r" || e.Fired[0] != "overwrite" || *e.Exit != 0 {
		t.Errorf("test expect: %+v", e)
	}
	if sp := pb.Spawn; sp.Shell != "./install.sh" || sp.Dir != "sub" || len(sp.Env) != 2 || sp.Size.Rows != 40 {
		t.Errorf("spawn: %+v", sp)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte("version: 1\nname: g\nspawn: {command: [bash]}\nrules:\n  - {name: r, match: x, line: y}\n"), 0o644)
	os.WriteFile(bad, []byte("version: 1\nname: b\nspawn: {command: [bash]}\nstepz: []\n"), 0o644)
	if _, err := files.Load(good); err != nil {
		t.Errorf("Load(good) = %v (warnings must not fail a load)", err)
	}
	_, err := files.Load(bad)
	var list diag.List
	if !errors.As(err, &list) || len(list) != 1 || list[0].Line != 4 {
		t.Errorf("Load(bad) = %v", err)
	}
	if _, err := files.Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("Load(missing) succeeded")
	}
}

func TestKeyBytes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key       playbooks.Key
		appCursor bool
		want      string
	}{
		{"enter", false, "\r"},
		{"up", false, "\x1b[A"},
		{"up", true, "\x1bOA"},
		{"ctrl-c", false, "\x03"},
		{"ctrl-a", false, "\x01"},
		{"f5", false, "\x1b[15~"},
		{"pgdn", false, "\x1b[6~"},
	}
	for _, c := range cases {
		if got := string(c.key.Bytes(c.appCursor)); got != c.want {
			t.Errorf("%s (app %v) = %q, want %q", c.key, c.appCursor, got, c.want)
		}
	}
	for _, name := range playbooks.KeyNames() {
		if len(playbooks.Key(name).Bytes(false)) == 0 {
			t.Errorf("key %q sends nothing", name)
		}
	}
}

func TestParseDurationAndSize(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Duration{"300ms": 300 * time.Millisecond, "1.5s": 1500 * time.Millisecond, "1h30m": 90 * time.Minute, "0": 0} {
		if got, err := playbooks.ParseDuration(s); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"5 minutes", "-1s", "1d", "", "s"} {
		if _, err := playbooks.ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", s)
		}
	}
	for s, want := range map[string]int64{"512": 512, "8KiB": 8192, "1MiB": 1 << 20, "2KB": 2000, "1.5K": 1536} {
		if got, err := playbooks.ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"8 kilobytes", "-1", "KiB"} {
		if _, err := playbooks.ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) succeeded", s)
		}
	}
}

// TestSecretNeverEchoed makes sure a secret written by mistake where a reference
// belongs does not appear in the finding.
func TestSecretNeverEchoed(t *testing.T) {
	t.Parallel()
	_, findings := playbooks.Parse("s.yaml", []byte("version: 1\nname: s\nspawn: {command: [ssh-keygen]}\nsteps:\n  - {expect: 'passphrase:', secret: hunter2}\n"))
	if len(findings) != 1 {
		t.Fatalf("findings: %v", findings)
	}
	if s := findings[0].String() + findings[0].Hint; strings.Contains(s, "hunter2") {
		t.Errorf("finding echoes the secret: %s", s)
	}
}

func TestRequiredLiteral(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`Overwrite (?P<file>\S+)\? \[y/N\]`: "Overwrite ",
		`rm\s+-rf\s+/(\s|$)`:                "-rf",
		`Select a framework`:                "Select a framework",
		`(?i)continue\?`:                    "",
		`(yes|no)`:                          "",
		`a*b`:                               "",
		`(?:Stage this hunk)+ \[`:           "Stage this hunk",
	}
	for src, want := range cases {
		pb := mustParse(t, "version: 1\nname: x\nspawn: {command: [x]}\nsteps:\n  - expect: {regex: '"+strings.ReplaceAll(src, "'", "''")+"'}\n")
		if got := pb.Steps[0].Expect.Patterns[0].Required; got != want {
			t.Errorf("%s: required %q, want %q", src, got, want)
		}
	}
}

func TestFindEach(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, "version: 1\nname: x\nspawn: {command: [x]}\nsteps:\n  - expect: ['ab', {regex: 'a(b|c)'}]\n")
	text := []byte("ab ac ab")
	for i, want := range [][][]int{{{0, 2}, {6, 8}}, {{0, 2, 1, 2}, {3, 5, 4, 5}, {6, 8, 7, 8}}} {
		var got [][]int
		pb.Steps[0].Expect.Patterns[i].FindEach(text, func(loc []int) bool {
			got = append(got, loc)
			return true
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("pattern %d: %v, want %v", i, got, want)
		}
	}
	var first [][]int
	pb.Steps[0].Expect.Patterns[0].FindEach(text, func(loc []int) bool {
		first = append(first, loc)
		return false
	})
	if len(first) != 1 {
		t.Errorf("FindEach went on after yield returned false: %v", first)
	}
}

func TestSettingsRetry(t *testing.T) {
	t.Parallel()
	const head = "version: 1\nname: retry\nspawn: {command: [prog]}\n"
	if pb := mustParse(t, head); !pb.Settings.Retry {
		t.Error("settings.retry is on by default")
	}
	if pb := mustParse(t, head+"settings: {retry: false}\n"); pb.Settings.Retry {
		t.Error("settings.retry: false turns it off")
	}
	pb, findings := playbooks.Parse("test.yaml", []byte(head+"settings:\n  retry: no thanks\n"))
	if pb != nil || len(findings) != 1 {
		t.Fatalf("want one finding, got %v", findings)
	}
	if f := findings[0]; f.Line != 5 || !strings.Contains(f.Message, "settings.retry") || !strings.Contains(f.Message, "true or false") {
		t.Errorf("finding %s:%d:%d %s", f.File, f.Line, f.Col, f.Message)
	}
}
