// Package tasks finds the tasks a project folder defines: the targets of its
// Makefile, the scripts of its package.json, the tasks of its Taskfile and
// the recipes of its justfile, each as the command that runs it. Files are
// read with a bound on their size and parsed by heuristics that never fail
// on a file they do not understand: they find fewer tasks.
package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Task is one task of a project.
type Task struct {
	// Name is the task's name in its file: "test".
	Name string
	// Command runs the task from the folder: "make test", "npm run test",
	// "task test", "just test".
	Command string
	// Source names the file the task comes from: "Makefile", "package.json",
	// "Taskfile.yml", "justfile".
	Source string
}

// Options tune Find.
type Options struct {
	// MakeDatabase asks make itself for the Makefile's targets (make -qp)
	// instead of reading the file by heuristics: it knows included files and
	// generated targets, but runs make, which runs the $(shell ...) of the
	// Makefile; so only on request.
	MakeDatabase bool
	// Make is the make to run; "make" on $PATH when empty.
	Make string
	// Timeout bounds make -qp; DefaultTimeout when zero.
	Timeout time.Duration
}

// Bounds on what is read.
const (
	// MaxFileSize is how much of a file is read. A Makefile or justfile past
	// it is read up to it; a package.json or Taskfile past it is skipped, as
	// its cut end would not parse.
	MaxFileSize = 1 << 20
	// MaxTasks is how many tasks a file gives at most.
	MaxTasks = 500
	// DefaultTimeout bounds make -qp.
	DefaultTimeout = 3 * time.Second
)

// Find returns the tasks defined in the folder dir, in the order Makefile,
// package.json, Taskfile, justfile and, within each, the file's order. A
// file that cannot be read or parsed adds to the error and the others are
// still read: the tasks come with an error that joins each file's.
func Find(ctx context.Context, dir string, opts Options) ([]Task, error) {
	var all []Task
	var errs []error
	for _, find := range []func(context.Context, string, Options) ([]Task, error){findMakefile, findPackageJSON, findTaskfile, findJustfile} {
		found, err := find(ctx, dir, opts)
		all = append(all, found...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return all, errors.Join(errs...)
}

// firstFile returns the first of names that is a regular file in dir, or "".
func firstFile(dir string, names ...string) string {
	for _, name := range names {
		info, err := os.Stat(filepath.Join(dir, name))
		if err == nil && info.Mode().IsRegular() {
			return name
		}
	}
	return ""
}

// readBounded reads up to MaxFileSize bytes of the file; whole is false
// when the file is longer.
func readBounded(path string) (data []byte, whole bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("tasks: %w", err)
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, false, fmt.Errorf("tasks: %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return data[:MaxFileSize], false, nil
	}
	return data, true, nil
}

// collector gathers a file's tasks, each name once, up to MaxTasks.
type collector struct {
	source string
	runner string // the command before the name: "make", "npm run"
	seen   map[string]bool
	tasks  []Task
}

func newCollector(source, runner string) *collector {
	return &collector{source: source, runner: runner, seen: map[string]bool{}}
}

// add adds the task name, unless it was added already, is no name a shell
// can type as a word (empty, not UTF-8, with a blank or a control
// character), or the file gave MaxTasks; it reports whether more may be
// added.
func (c *collector) add(name string) bool {
	if len(c.tasks) >= MaxTasks {
		return false
	}
	if !isTypable(name) || c.seen[name] {
		return true
	}
	c.seen[name] = true
	c.tasks = append(c.tasks, Task{Name: name, Command: c.runner + " " + name, Source: c.source})
	return len(c.tasks) < MaxTasks
}

// isTypable reports whether name is a word a person types: not empty, UTF-8,
// no blanks or control characters, and not longer than 200 bytes.
func isTypable(name string) bool {
	if name == "" || len(name) > 200 || !utf8.ValidString(name) {
		return false
	}
	return strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) < 0
}
