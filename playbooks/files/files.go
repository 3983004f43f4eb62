// Package files reads playbooks, the user config and secret files from the
// file system, bounded, and lints folders of playbooks. The model, its
// compiler and its checks (package playbooks) read nothing themselves: a
// run's engine, which knows no operating system, reaches the model's types
// without reaching this package.
package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clai-sh/clai/internal/bounded"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
)

// Load reads and compiles the playbook at path. Its error is a diag.List of every
// error found (warnings are left to Lint), or the error reading the file.
func Load(path string) (*playbooks.Playbook, error) {
	src, err := readPlaybook(path)
	if errors.Is(err, errTooLarge) {
		return nil, diag.List{playbooks.FileTooLarge(path)}
	}
	if err != nil {
		return nil, fmt.Errorf("read playbook: %w", err)
	}
	pb, findings := playbooks.Parse(path, src)
	var errs diag.List
	for _, f := range findings {
		if f.Severity == diag.Error {
			errs = append(errs, f)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return pb, nil
}

// LoadConfig reads the user's config file at path. A file that is not there
// is an empty config; its error is a diag.List of every error found, or the
// error reading the file.
func LoadConfig(path string) (*playbooks.Config, error) {
	src, err := readPlaybook(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &playbooks.Config{Path: path}, nil
	case errors.Is(err, errTooLarge):
		return nil, diag.List{playbooks.FileTooLarge(path)}
	case err != nil:
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, findings := playbooks.ParseConfig(path, src)
	if findings.HasErrors() {
		var errs diag.List
		for _, f := range findings {
			if f.Severity == diag.Error {
				errs = append(errs, f)
			}
		}
		return nil, errs
	}
	return cfg, nil
}

// LintConfig checks the user config file at path as clai run reads it: its
// findings are those of a playbook's notify: list and answerer: (but literal-secret: the
// file is the place for tokens), missing-env of environ included. src is
// what was read, cfg what it says (nil where it does not load); found is
// false, with no finding, when there is no file at path.
func LintConfig(path string, environ []string) (findings diag.List, src []byte, cfg *playbooks.Config, found bool) {
	src, err := readPlaybook(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil, false
	case errors.Is(err, errTooLarge):
		return diag.List{playbooks.FileTooLarge(path)}, nil, nil, true
	case err != nil:
		return diag.List{ioFinding(path, err)}, nil, nil, true
	}
	cfg, findings = playbooks.ParseConfig(path, src)
	if cfg != nil {
		findings = append(findings, playbooks.MissingEnvOf(cfg.Notify, environ)...)
	}
	findings.Sort()
	return findings, src, cfg, true
}

// errTooLarge is the error of readPlaybook for a file over
// playbooks.MaxFileSize. (A value of its own type: it costs no work at
// start-up, which every clai command would pay.)
var errTooLarge error = tooLargeError{}

// tooLargeError is the type of errTooLarge.
type tooLargeError struct{}

func (tooLargeError) Error() string { return "larger than " + bounded.Size(playbooks.MaxFileSize) }

// readPlaybook reads the playbook file at path, or fails with errTooLarge past
// playbooks.MaxFileSize bytes (a device that never ends too).
func readPlaybook(path string) ([]byte, error) {
	src, err := bounded.ReadFile(path, playbooks.MaxFileSize)
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, errTooLarge
	}
	return src, err
}

// LintResult is what linting a set of paths found.
type LintResult struct {
	Findings diag.List
	// Sources holds the content of every file read, by the name findings use.
	Sources map[string][]byte
	// Files lists the playbooks linted, in order.
	Files []string
	// Playbooks holds each file that loaded without errors.
	Playbooks map[string]*playbooks.Playbook
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
	res := LintResult{Sources: map[string][]byte{}, Playbooks: map[string]*playbooks.Playbook{}}
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
				res.Findings = append(res.Findings, playbooks.FileTooLarge(f))
				continue
			}
			if err != nil {
				res.Findings = append(res.Findings, ioFinding(f, err))
				continue
			}
			res.Sources[f] = src
			pb, findings := playbooks.Parse(f, src)
			res.Findings = append(res.Findings, findings...)
			if pb != nil {
				res.Playbooks[f] = pb
				res.Findings = append(res.Findings, playbooks.MissingEnv(pb, os.Environ())...)
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
		Pos: playbooks.Pos{File: path, Line: 1, Col: 1}, Severity: diag.Error, Rule: "io",
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
