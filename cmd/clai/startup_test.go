package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// initAllocators are the packages outside the standard library whose
// initialisers allocate when clai (the lean one, bin/clai) starts, as `GODEBUG=inittrace=1 clai
// version` shows them: every command pays for them, whether it uses them or
// not. A change that adds one (a package-level regexp.MustCompile, a table
// built at init, an import that links a heavy library) must add it here in
// the same commit, and say why in its message; one that removes one removes
// it. docs/performance.md#start-up tells what each group costs.
var initAllocators = []string{
	// The terminal emulator and its parser.
	"github.com/charmbracelet/colorprofile",
	"github.com/charmbracelet/ultraviolet",
	"github.com/charmbracelet/x/ansi",
	"github.com/charmbracelet/x/ansi/parser",
	"github.com/charmbracelet/x/termios",
	"github.com/charmbracelet/x/vt",
	"github.com/mattn/go-runewidth",
	"github.com/muesli/cancelreader",
	"github.com/xo/terminfo",
	// clai's own: small maps and error values, no expression compiled and no
	// table built (internal/lazyre, sync.OnceValue).
	"github.com/clai-sh/clai/internal/redact",
	"github.com/clai-sh/clai/playbooks",
	"github.com/clai-sh/clai/playbooks/safecmd",
	"github.com/clai-sh/clai/runner/driver/keys",
	"github.com/clai-sh/clai/runner/eventlog",
	"github.com/clai-sh/clai/runner/report",
	"github.com/clai-sh/clai/runner/suggest/hookproto",
	"github.com/clai-sh/clai/runner/suggest/secretfilter",
	// Expressions, YAML, the shell parser, the CLI library.
	"github.com/expr-lang/expr/ast",
	"github.com/expr-lang/expr/builtin",
	"github.com/expr-lang/expr/checker/nature",
	"github.com/expr-lang/expr/file",
	"github.com/expr-lang/expr/parser",
	"github.com/expr-lang/expr/parser/lexer",
	"github.com/expr-lang/expr/parser/operator",
	"github.com/expr-lang/expr/types",
	"github.com/expr-lang/expr/vm",
	"github.com/goccy/go-yaml",
	"github.com/goccy/go-yaml/parser",
	"github.com/goccy/go-yaml/printer",
	"github.com/goccy/go-yaml/token",
	"github.com/urfave/cli/v2",
	"mvdan.cc/sh/v3/fileutil",
	// The event log.
	"go.uber.org/zap",
	"go.uber.org/zap/internal/bufferpool",
	"go.uber.org/zap/internal/stacktrace",
	"go.uber.org/zap/zapcore",
	// The system calls of the terminal and the sessions.
	"golang.org/x/sys/unix",
}

// initLine is a line of GODEBUG=inittrace=1: the package, then its clock,
// bytes and allocations.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestStartupInitialisers holds the packages whose initialisers allocate
// when clai starts to initAllocators: start-up work may not grow unseen.
// It counts, it does not time: the set is the same on any machine.
func TestStartupInitialisers(t *testing.T) {
	t.Parallel()
	clai := testprog.BuildCommand(t, "./cmd/clai")
	cmd := exec.Command(clai, "version")
	cmd.Env = []string{"GODEBUG=inittrace=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("clai version: %v\n%s", err, stderr.String())
	}
	got := map[string]string{}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pkg, allocs := m[1], m[3]
		if n, _ := strconv.Atoi(allocs); n == 0 || standard(pkg) {
			continue
		}
		got[pkg] = m[2] + " bytes, " + allocs + " allocations"
	}
	if len(got) == 0 {
		t.Fatalf("no initialiser in clai version's inittrace:\n%s", stderr.String())
	}
	for pkg, cost := range got {
		if !slices.Contains(initAllocators, pkg) {
			t.Errorf("%s allocates at start-up (%s): make its work lazy, or add it to initAllocators", pkg, cost)
		}
	}
	for _, pkg := range initAllocators {
		if _, ok := got[pkg]; !ok {
			t.Errorf("%s no longer allocates at start-up: take it out of initAllocators", pkg)
		}
	}
}

// standard reports whether pkg belongs to Go's standard library, whose
// initialisers change with the Go release, not with clai.
func standard(pkg string) bool {
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".") || first == "vendor"
}

// TestBuildTagsAgree: make build and the tests' builds (testprog.BuildTags) use
// the same tags, so that the binary TestStartupInitialisers holds is the one
// make build makes.
func TestBuildTagsAgree(t *testing.T) {
	t.Parallel()
	root, err := testprog.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nTAGS        ?= " + testprog.Tags + "\n", "\nSTATIC_TAGS ?= " + testprog.StaticTags + "\n",
		"-tags '$(BUILD_TAGS)," + testprog.LeanTag + "' -o $(BIN) ./cmd/clai\n"} {
		if !bytes.Contains(makefile, []byte(want)) {
			t.Errorf("the Makefile sets no %q: make build and the tests would build different binaries", strings.TrimSpace(want))
		}
	}
}
