package runner

import "os"

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
