package tasks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/bounded"
	"github.com/clai-sh/clai/internal/procgroup"
)

// makefileNames are the files make reads, in its order.
var makefileNames = []string{"GNUmakefile", "makefile", "Makefile"}

// findMakefile returns the targets of the folder's Makefile: by heuristics,
// or from make -qp when opts ask.
func findMakefile(ctx context.Context, dir string, opts Options) ([]Task, error) {
	name := firstFile(dir, makefileNames...)
	if name == "" {
		return nil, nil
	}
	if opts.MakeDatabase {
		return makeDatabase(ctx, dir, name, opts)
	}
	data, _, err := readBounded(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	c := newCollector(name, "make")
	for _, target := range makefileTargets(string(data)) {
		if !c.add(target) {
			break
		}
	}
	return c.tasks, nil
}

// makefileTargets reads a Makefile's explicit targets, in order: the names
// before the ":" of a rule, but not a special target (.PHONY, any name that
// starts with "."), a pattern (%), a name made of variables ($), a file (a
// name with "/" or a "." extension), nor a line that sets a variable
// (VAR = x, VAR := x, a target-specific "t: VAR = x"). Recipes, comments,
// conditionals and define blocks are skipped.
func makefileTargets(text string) []string {
	var targets []string
	inDefine := false
	for _, line := range logicalLines(text) {
		if strings.HasPrefix(line, "\t") {
			continue // a recipe
		}
		trimmed := strings.TrimSpace(stripComment(line))
		first, _, _ := strings.Cut(trimmed, " ")
		switch {
		case inDefine:
			inDefine = first != "endef"
			continue
		case first == "define":
			inDefine = true
			continue
		case trimmed == "" || isDirective(first):
			continue
		}
		targets = append(targets, ruleTargets(trimmed)...)
	}
	return targets
}

// logicalLines splits text into lines, joining those a backslash continues.
func logicalLines(text string) []string {
	var lines []string
	var cur strings.Builder
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasSuffix(line, `\`) {
			cur.WriteString(strings.TrimSuffix(line, `\`))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(line)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// stripComment cuts line at a "#" that no backslash escapes.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '#':
			return line[:i]
		}
	}
	return line
}

// isDirective reports whether word starts a make directive line.
func isDirective(word string) bool {
	switch word {
	case "include", "-include", "sinclude", "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif",
		"export", "unexport", "override", "private", "vpath", "undefine", "endef", "load", "-load":
		return true
	}
	return false
}

// ruleTargets returns the task-like targets of a rule line, or none when
// the line is no rule.
func ruleTargets(line string) []string {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return nil
	}
	head, rest := line[:colon], line[colon+1:]
	if strings.ContainsAny(head, "=") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":=") || strings.HasPrefix(rest, "::=") {
		return nil // an assignment: VAR = a:b, VAR := x, VAR ::= x
	}
	prereqs, _, _ := strings.Cut(strings.TrimPrefix(rest, ":"), ";")
	if strings.Contains(prereqs, "=") {
		return nil // a target-specific variable
	}
	var targets []string
	for _, name := range strings.Fields(head) {
		if isTaskTarget(name) {
			targets = append(targets, name)
		}
	}
	return targets
}

// isTaskTarget reports whether a target's name is a task's: not special,
// not a pattern, no variable, not a file.
func isTaskTarget(name string) bool {
	if strings.HasPrefix(name, ".") || strings.ContainsAny(name, "%$/()\\\"'") {
		return false
	}
	return !strings.Contains(name, ".") // a file such as app.o or docs.html
}

// Bounds on make -qp.
const maxMakeOutput = 8 << 20

// noSuchGoal is the goal make -qp is given: no Makefile has it, so make
// builds nothing, says it has no rule for it, and prints its database.
const noSuchGoal = "__clai_list_targets__"

// makeDatabase runs make -qp in dir and reads the targets of its database:
// with -n (run no recipe) and a goal no Makefile has (build nothing), make
// only reads the Makefile and prints what it knows.
func makeDatabase(ctx context.Context, dir, name string, opts Options) ([]Task, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	makeProgram := opts.Make
	if makeProgram == "" {
		makeProgram = "make"
	}
	cmd := exec.CommandContext(ctx, makeProgram, "-npqRr", "-f", name, noSuchGoal)
	cmd.Dir = dir
	cmd.Env = makeEnv(os.Environ())
	out, stderr := bounded.NewWriter(maxMakeOutput), bounded.NewWriter(4<<10)
	cmd.Stdout, cmd.Stderr = out, stderr
	procgroup.Own(cmd) // the timeout stops the Makefile's $(shell ...) too
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("tasks: make -qp in %s: %w", dir, ctx.Err())
	}
	if err != nil && !onlyNoRule(err, stderr.String()) {
		return nil, fmt.Errorf("tasks: make -qp in %s: %w%s", dir, err, firstStderrLine(stderr.String()))
	}
	c := newCollector(name, "make")
	for _, target := range databaseTargets(out.String()) {
		if !c.add(target) {
			break
		}
	}
	return c.tasks, nil
}

// onlyNoRule reports whether make failed only for want of a rule for
// noSuchGoal, as it should: the Makefile read well.
func onlyNoRule(err error, stderr string) bool {
	var exitErr *exec.ExitError
	return errors.As(err, &exitErr) && exitErr.ExitCode() == 2 &&
		strings.Count(strings.TrimSpace(stderr), "\n") == 0 && strings.Contains(stderr, "No rule to make target '"+noSuchGoal+"'")
}

// firstStderrLine is the first line of what a program wrote to stderr,
// after ": ", or "".
func firstStderrLine(stderr string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if line == "" {
		return ""
	}
	return ": " + line
}

// makeEnv is env without what a make that runs this would pass down, and
// with messages in English.
func makeEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEFILES", "GNUMAKEFLAGS", "LC_ALL":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LC_ALL=C")
}

// databaseTargets reads the targets of make -qp's "# Files" section, sorted:
// rule lines that no "# Not a target:" comment marks, with the names
// isTaskTarget accepts.
func databaseTargets(db string) []string {
	inFiles, notTarget := false, false
	seen := map[string]bool{}
	var targets []string
	for line := range strings.Lines(db) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "# Files"):
			inFiles = true
		case strings.HasPrefix(line, "# files hash"), strings.HasPrefix(line, "# Finished Make data base"):
			inFiles = false
		case !inFiles || line == "" || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, " "):
		case line == "# Not a target:":
			notTarget = true
		case strings.HasPrefix(line, "#"):
		default:
			if !notTarget {
				for _, target := range ruleTargets(line) {
					if !seen[target] {
						seen[target] = true
						targets = append(targets, target)
					}
				}
			}
			notTarget = false
		}
	}
	sort.Strings(targets)
	return targets
}
