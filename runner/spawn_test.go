package runner

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// parsePlaybook parses src as the playbook at path, failing on any finding.
func parsePlaybook(t *testing.T, path, src string) *playbooks.Playbook {
	t.Helper()
	pb, findings := playbooks.Parse(path, []byte(src))
	if len(findings) != 0 {
		t.Fatalf("findings: %v", findings)
	}
	return pb
}

// TestResolveSpawnTemplates checks that {{ }} in command, shell, dir and env
// take the variables (after --var), that ${VAR} is expanded around them, and
// that what a template yields is never expanded again.
func TestResolveSpawnTemplates(t *testing.T) {
	t.Parallel()
	pb := parsePlaybook(t, "/pb/disk.yaml", "version: 1\nname: d\nvars: {disk: a.img, label: x}\nspawn:\n"+
		"  command: [fdisk, '{{ vars.disk }}', '${HOME}/{{ vars.label }}', '{{ env.HOME }}', '{{ \"{{\" }}']\n"+
		"  dir: 'work-{{ vars.label }}'\n  env: {DISK: '{{ vars.disk }}:${HOME}'}\n")
	environ := []string{"HOME=/home/u", "PATH=/bin"}
	vars := map[string]string{"disk": "${HOME}/b.img", "label": "{{ vars.disk }}"}
	sp, err := resolveSpawn(pb, environ, vars, []string{"--extra"})
	if err != nil {
		t.Fatal(err)
	}
	wantArgv := []string{"fdisk", "${HOME}/b.img", "/home/u/{{ vars.disk }}", "/home/u", "{{", "--extra"}
	if !slices.Equal(sp.Argv, wantArgv) {
		t.Errorf("argv %q, want %q", sp.Argv, wantArgv)
	}
	if want := filepath.Join("/pb", "work-{{ vars.disk }}"); sp.Dir != want {
		t.Errorf("dir %q, want %q", sp.Dir, want)
	}
	if want := []string{"DISK=${HOME}/b.img:/home/u"}; !slices.Equal(sp.PlaybookEnv, want) {
		t.Errorf("playbook env %q, want %q", sp.PlaybookEnv, want)
	}

	shell := parsePlaybook(t, "/pb/s.yaml", "version: 1\nname: s\nvars: {disk: a.img}\nspawn: {shell: 'fdisk {{ vars.disk }} $1'}\n")
	sp, err = resolveSpawn(shell, []string{"SHELL=/bin/sh"}, map[string]string{"disk": "c.img"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/bin/sh", "-c", "fdisk c.img $1", "clai"}; !slices.Equal(sp.Argv, want) {
		t.Errorf("shell argv %q, want %q", sp.Argv, want)
	}
}

// TestResolveSpawnTemplateErrors checks that a template that fails when the
// run starts (an unset environment variable) names the field.
func TestResolveSpawnTemplateErrors(t *testing.T) {
	t.Parallel()
	pb := parsePlaybook(t, "/pb/e.yaml", "version: 1\nname: e\nspawn: {command: [x, '{{ env.NOPE }}']}\n")
	_, err := resolveSpawn(pb, nil, nil, nil)
	if want := "spawn.command[1]: template {{ env.NOPE }}: the environment variable NOPE is not set"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestReplaceCommandTakesArgvAsItIs checks that a command given in place of the
// playbook's (--replace) is run as typed, without the templates of the one it
// replaces, while the other fields keep theirs.
func TestReplaceCommandTakesArgvAsItIs(t *testing.T) {
	t.Parallel()
	pb := parsePlaybook(t, "/pb/r.yaml", "version: 1\nname: r\nvars: {disk: a.img}\nspawn:\n  command: [fdisk, '{{ vars.disk }}']\n  dir: '{{ vars.disk }}.d'\n")
	pb.Spawn.ReplaceCommand([]string{"fdisk", "{{ vars.disk }}"})
	sp, err := resolveSpawn(pb, nil, map[string]string{"disk": "b.img"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fdisk", "{{ vars.disk }}"}; !slices.Equal(sp.Argv, want) {
		t.Errorf("argv %q, want %q", sp.Argv, want)
	}
	if want := "/pb/b.img.d"; sp.Dir != want {
		t.Errorf("dir %q, want %q", sp.Dir, want)
	}
}

// A tmux session name that ${VAR} makes one tmux would not keep is refused
// before anything starts, as lint refuses one written so.
func TestResolveSpawnRefusesASessionNameTmuxChanges(t *testing.T) {
	t.Parallel()
	pb := parsePlaybook(t, "/pb/t.yaml", "version: 1\nname: t\nspawn: {tmux: {session: '${SESSION}'}, command: [top]}\n")
	_, err := resolveSpawn(pb, []string{"SESSION=my.run"}, nil, nil)
	if want := `spawn.tmux.session: "my.run" holds : or ., which tmux does not keep in a session name`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if _, err := resolveSpawn(pb, []string{"SESSION=my_run"}, nil, nil); err != nil {
		t.Errorf("my_run: %v", err)
	}
}
