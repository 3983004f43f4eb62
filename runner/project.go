package runner

import (
	"os"

	"github.com/clai-sh/clai/playbooks"
)

// projectDir is the project of a run, the folder readOnly(cmd) and
// projectCode(cmd) check paths against: the folder its program works in, dir
// when the spawn gives one, else clai's own working folder ("" when that
// cannot be read: then no absolute path is inside the project).
func projectDir(dir string) string {
	if dir != "" {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// testProject is the project of one of a playbook's tests: its project:, a
// path relative to the playbook's folder, else the current folder.
func testProject(pb *playbooks.Playbook, t *playbooks.Test) string {
	if t.Project != "" {
		return pb.ResolvePath(t.Project)
	}
	return projectDir("")
}

// testVars are the variables of one of a playbook's tests: the playbook's,
// with the test's own over them; nil when the test sets none (the engine
// then takes the playbook's).
func testVars(pb *playbooks.Playbook, t *playbooks.Test) map[string]string {
	if len(t.Vars) == 0 {
		return nil
	}
	vars := map[string]string{}
	for _, v := range pb.Vars {
		vars[v.Name] = v.Value
	}
	for _, v := range t.Vars {
		vars[v.Name] = v.Value
	}
	return vars
}
