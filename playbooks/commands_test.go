package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// commandsPlaybook approves a command an agent asks to run with readOnly and,
// when asked to, projectCode.
const commandsPlaybook = `version: 1
name: commands
spawn: {command: [agent]}
vars: {run_project_code: "no"}
rules:
  - name: approve-read-only
    match: {regex: 'Run (?P<cmd>[^\n]+)\?'}
    when: readOnly(match.cmd)
    line: "y"
    cooldown: 1s
  - name: approve-project-code
    match: {regex: 'Run (?P<cmd>[^\n]+)\?'}
    when: vars.run_project_code == "yes" and projectCode(match.cmd)
    line: "y"
    cooldown: 1s
`

// readOnly and projectCode judge the command in the project of the values.
func TestCommandChecksJudgeInTheProject(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("commands.yaml", []byte(commandsPlaybook))
	if pb == nil || len(findings) > 0 {
		t.Fatalf("%v", findings)
	}
	readOnly, projectCode := pb.Rules[0], pb.Rules[1]
	for _, c := range []struct {
		rule           *playbooks.Rule
		cmd, project   string
		runProjectCode string
		want           bool
	}{
		{readOnly, "ls -la /work/proj/src", "/work/proj", "no", true},
		{readOnly, "ls -la /work/proj/src", "/work/other", "no", false},
		{readOnly, "ls -la /work/proj/src", "", "no", false},
		{readOnly, "find . -delete", "/work/proj", "no", false},
		{readOnly, "go test ./...", "/work/proj", "yes", false},
		{projectCode, "go test ./...", "/work/proj", "no", false},
		{projectCode, "go test ./...", "/work/proj", "yes", true},
		{projectCode, "go test -exec /tmp/x ./...", "/work/proj", "yes", false},
	} {
		v := playbooks.Values{
			Named:   map[string]string{"cmd": c.cmd},
			Vars:    map[string]string{"run_project_code": c.runProjectCode},
			Project: c.project,
		}
		got, err := c.rule.When.Eval(c.rule.Env, v)
		if err != nil || got != c.want {
			t.Errorf("%s on %q in %q (run_project_code %s) = %v, %v; want %v", c.rule.Name, c.cmd, c.project, c.runProjectCode, got, err, c.want)
		}
	}
}

// A call without one string is an expr error that says how to call it; a call
// on a constant is a warning; neither is known in spawn.
func TestCommandChecksAreLinted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		yaml, rule, want string
	}{
		{"rules:\n  - {name: r, match: 'Run', when: 'readOnly()', line: y, limit: 1}\n", "expr", "not enough arguments to call readOnly (readOnly takes the command line as one string)"},
		{"rules:\n  - {name: r, match: 'Run', when: 'projectCode(1)', line: y, limit: 1}\n", "expr", "cannot use int as argument (type string) to call projectCode"},
		{"rules:\n  - {name: r, match: 'Run', when: 'readonly(match.text)', line: y, limit: 1}\n", "expr", `unknown name "readonly", did you mean "readOnly"?`},
		{"rules:\n  - {name: r, match: 'Run', when: 'readOnly(\"ls\")', line: y, limit: 1}\n", "constant-command", "readOnly is given a constant command (column 1)"},
		{"rules:\n  - {name: r, match: 'Run', when: 'readOnly(match.text)', line: y, limit: 1}\n", "", ""},
	} {
		src := "version: 1\nname: c\nspawn: {command: [x]}\n" + c.yaml
		_, findings := playbooks.Parse("c.yaml", []byte(src))
		switch {
		case c.rule == "" && len(findings) > 0:
			t.Errorf("%s: %v", c.yaml, findings)
		case c.rule != "" && (len(findings) != 1 || findings[0].Rule != c.rule || !strings.Contains(findings[0].Message, c.want) || findings[0].Line != 5):
			t.Errorf("%s: %v, want one %s finding at line 5 saying %q", c.yaml, findings, c.rule, c.want)
		}
	}
	src := "version: 1\nname: c\nspawn: {command: [x, '{{ readOnly(\"ls\") }}']}\n"
	if _, findings := playbooks.Parse("c.yaml", []byte(src)); len(findings) != 1 || !strings.Contains(findings[0].Message, "readOnly is not known before the program starts") {
		t.Errorf("readOnly in spawn: %v", findings)
	}
}

// A test sets only the variables the playbook declares, and names its project.
func TestTestsSetDeclaredVars(t *testing.T) {
	t.Parallel()
	src := commandsPlaybook + `tests:
  - name: opt-in
    project: /work/proj
    vars: {run_project_code: "yes"}
    output: "Run npm test?"
  - name: misspelt
    vars: {run_project_cod: "yes"}
    output: "Run npm test?"
`
	pb, findings := playbooks.Parse("commands.yaml", []byte(src))
	if len(findings) != 1 || findings[0].Rule != "reference" || findings[0].Line != 22 ||
		!strings.Contains(findings[0].Message, `test "misspelt" sets vars.run_project_cod, which the playbook does not declare; did you mean "run_project_code"?`) {
		t.Fatalf("findings %v, want the misspelt variable at line 22", findings)
	}
	if pb == nil {
		return
	}
	if tt := pb.Tests[0]; tt.Project != "/work/proj" || len(tt.Vars) != 1 || tt.Vars[0].Name != "run_project_code" || tt.Vars[0].Value != "yes" {
		t.Errorf("test %+v", tt)
	}
}

// A playbook that extends a preset has the preset's variables, its own values
// over them.
func TestExtendsMergesVars(t *testing.T) {
	t.Parallel()
	src := "version: 1\nname: mine\nextends: claude-code\nspawn: {command: [claude]}\nvars: {run_project_code: \"yes\", mine: x}\n" +
		"rules:\n  - {name: tests, match: 'Run', when: 'vars.run_project_code == \"yes\" and vars.mine == \"x\"', line: y, limit: 1}\n"
	pb, findings := playbooks.Parse("mine.yaml", []byte(src))
	if pb == nil || len(findings) > 0 {
		t.Fatalf("%v", findings)
	}
	got := map[string]string{}
	for _, v := range pb.Vars {
		got[v.Name] = v.Value
	}
	if len(got) != 2 || got["run_project_code"] != "yes" || got["mine"] != "x" {
		t.Errorf("vars %v, want run_project_code yes and mine x", got)
	}
}
