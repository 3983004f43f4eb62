package playbooks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clai-sh/clai/playbooks/diag"
)

// LintResult is what linting a set of paths found.
type LintResult struct {
	Findings diag.List
	// Sources holds the content of every file read, by the name findings use.
	Sources map[string][]byte
	// Files lists the playbooks linted, in order.
	Files []string
	// Playbooks holds each file that loaded without errors.
	Playbooks map[string]*Playbook
}

// Lint checks the playbooks at paths: files, or folders searched for *.yaml and
// *.yml. A missing or unreadable path, or a folder with no playbook, is an error
// finding, never a skip. Findings are sorted.
func Lint(paths []string) LintResult {
	return LintContext(context.Background(), paths)
}

// LintContext is Lint that stops when ctx ends: it then returns what it found in
// the files it checked, and the caller reads ctx.Err() to know it stopped.
func LintContext(ctx context.Context, paths []string) LintResult {
	res := LintResult{Sources: map[string][]byte{}, Playbooks: map[string]*Playbook{}}
	for _, p := range paths {
		files, err := playbookFiles(ctx, p)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			res.Findings = append(res.Findings, ioFinding(p, err))
			continue
		}
		for _, f := range files {
			if ctx.Err() != nil {
				break
			}
			res.Files = append(res.Files, f)
			src, err := readPlaybook(f)
			if errors.Is(err, errTooLarge) {
				res.Findings = append(res.Findings, tooLarge(f))
				continue
			}
			if err != nil {
				res.Findings = append(res.Findings, ioFinding(f, err))
				continue
			}
			res.Sources[f] = src
			pb, findings := Parse(f, src)
			res.Findings = append(res.Findings, findings...)
			if pb != nil {
				res.Playbooks[f] = pb
				res.Findings = append(res.Findings, MissingEnv(pb, os.Environ())...)
			}
		}
	}
	res.Findings.Sort()
	return res
}

func ioFinding(path string, err error) diag.Diagnostic {
	hint := "check the path and its permissions"
	if errors.Is(err, fs.ErrNotExist) {
		hint = "check the path: lint takes playbook files and folders"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return diag.Diagnostic{
		Pos: Pos{File: path, Line: 1, Col: 1}, Severity: diag.Error, Rule: "io",
		Message: fmt.Sprintf("cannot read %s: %v", path, err), Hint: hint,
	}
}

// playbookFiles returns path itself for a file, or the *.yaml and *.yml files below a
// folder (hidden folders skipped), sorted; the search of a folder stops when ctx ends.
func playbookFiles(ctx context.Context, path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			if p != path && strings.HasPrefix(e.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("the folder holds no playbook (*.yaml, *.yml)")
	}
	return files, nil
}
