package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// TestSpawnTemplatesReadVarsAndEnvOnly checks that a spawn value's template that
// reads anything but vars and env, or a variable that is not declared, is an
// error at the value's own line.
func TestSpawnTemplatesReadVarsAndEnvOnly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, spawn, want string
		line              int
	}{
		{"match in command", "  command: [fdisk,\n    \"{{ match.text }}\"]", "spawn.command[1]: {{ match.text }}: match is not known before the program starts", 5},
		{"state in shell", "  shell: 'echo {{ state }}'", "spawn.shell: {{ state }}: state is not known before the program starts", 4},
		{"step in dir", "  command: [x]\n  dir: '{{ step.name }}'", "spawn.dir: {{ step.name }}: step is not known", 5},
		{"undeclared var in env", "  command: [x]\n  env:\n    DISK: '{{ vars.dsk }}'", `spawn.env.DISK: {{ vars.dsk }}: vars has no field "dsk", did you mean "disk"?`, 6},
		{"never closed", "  command: [x, '{{ vars.disk']", "spawn.command[1]: {{ at byte 1 is never closed", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := "version: 1\nname: s\nspawn:\n" + c.spawn + "\nvars: {disk: /tmp/x.img}\n"
			_, findings := playbooks.Parse("s.yaml", []byte(src))
			if len(findings) != 1 {
				t.Fatalf("findings: %v", findings)
			}
			f := findings[0]
			if !strings.Contains(f.Message, c.want) || f.Line != c.line {
				t.Errorf("finding %d:%d %q, want line %d with %q", f.Line, f.Col, f.Message, c.line, c.want)
			}
		})
	}
}

// TestSpawnTemplatesCompile checks that templates over vars and env, and
// expressions with functions, are accepted in every spawn value.
func TestSpawnTemplatesCompile(t *testing.T) {
	t.Parallel()
	src := "version: 1\nname: s\nvars: {disk: /tmp/x.img}\nspawn:\n" +
		"  command: [fdisk, '{{ vars.disk }}', '{{ upper(env?.MODE ?? \"x\") }}']\n" +
		"  dir: '{{ vars.disk }}.d'\n  env: {DISK: '${HOME}/{{ vars.disk }}'}\n"
	if _, findings := playbooks.Parse("s.yaml", []byte(src)); len(findings) != 0 {
		t.Fatalf("findings: %v", findings)
	}
}
