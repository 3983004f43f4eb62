// Package testprog builds the fake programs under testdata/fakes (the
// interactive prompter, danger, flood, roundtrip, silent, binary, stubborn,
// forker and echo; tui, which draws a menu like a full-screen program: raw mode,
// cursor jumps for spaces, partial redraws, terminal queries; anthropic, a fake
// Messages API a real Claude Code can be pointed at; and modelapi, a fake OpenAI
// Responses and Gemini API for Codex CLI and Gemini CLI; secrets, which shows a
// secret the ways programs do) so tests and benchmarks
// can run them.
//
// Build compiles each fake once per test binary into a directory under
// os.TempDir named after the test process; directories of test processes that
// are gone are swept on first use. Call Cleanup from TestMain to remove this
// process's directory at once.
package testprog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

const dirPrefix = "clai-testprog-"

var (
	mu     sync.Mutex
	builds = map[string]*build{}

	cacheOnce sync.Once
	cacheDir  string
	cacheErr  error
)

type build struct {
	once sync.Once
	path string
	err  error
}

// Build returns the path of the fake program testdata/fakes/<name>, building
// it on first use in this test binary. It fails t with the compiler's output
// if the build fails.
func Build(t testing.TB, name string) string {
	t.Helper()
	return cached(t, name, func(dir string) (string, error) {
		return filepath.Join(dir, name), BuildAll(dir, name)
	})
}

// Tags are the build tags clai is built with, in the Makefile's TAGS too:
// urfave_cli_no_docs leaves out the CLI library's man page and Markdown
// output, which clai never writes, and with them a Markdown parser whose
// package initialisers every command would run at start-up.
const Tags = "urfave_cli_no_docs"

// StaticTags are the tags the Makefile's STATIC_TAGS adds on Linux: netgo and
// osusergo leave out the C resolver and user lookup, the only users of cgo in
// clai, so that it is linked statically and maps no libc.
const StaticTags = "netgo,osusergo"

// BuildTags are the tags clai is built with on this system, as make build
// builds it: Tags, and StaticTags on Linux.
func BuildTags() string {
	if runtime.GOOS == "linux" {
		return Tags + "," + StaticTags
	}
	return Tags
}

// LeanTag builds the lean clai, which links no human loop and hands the
// commands and runs that need it to the full clai, Companion, beside it
// (docs/performance.md#two-binaries).
const LeanTag = "clai_lean"

// Companion is the full clai's file name, beside the lean one.
const Companion = "clai-full"

// BuildCommand returns the path of the module's command package pkg (such as
// "./cmd/clai") built once per test binary into the same swept directory,
// with BuildTags, as make build builds it: clai is the lean clai, with
// the full one beside it as Companion.
func BuildCommand(t testing.TB, pkg string) string {
	t.Helper()
	return cached(t, pkg, func(dir string) (string, error) {
		root, err := ModuleRoot()
		if err != nil {
			return "", err
		}
		bin := filepath.Join(dir, "cmd-"+filepath.Base(pkg))
		if filepath.Base(pkg) != "clai" {
			return bin, goBuild(root, bin, pkg, BuildTags())
		}
		if err := goBuild(root, filepath.Join(dir, Companion), pkg, BuildTags()); err != nil {
			return "", err
		}
		return bin, goBuild(root, bin, pkg, BuildTags()+","+LeanTag)
	})
}

// goBuild builds the package pkg of the module at root into bin with tags.
func goBuild(root, bin, pkg, tags string) error {
	cmd := exec.Command(goTool(), "build", "-buildvcs=false", "-tags", tags, "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", pkg, err, out)
	}
	return nil
}

// cached runs make once per key in this test binary, in the cache directory.
func cached(t testing.TB, key string, make func(dir string) (string, error)) string {
	t.Helper()
	mu.Lock()
	b := builds[key]
	if b == nil {
		b = &build{}
		builds[key] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		cacheOnce.Do(func() { cacheDir, cacheErr = makeCacheDir() })
		if cacheErr != nil {
			b.err = cacheErr
			return
		}
		b.path, b.err = make(cacheDir)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// BuildAll builds the named fakes (all of them when names is empty) into dir,
// creating it if needed; each binary is dir/<name>. For benchmarks and
// TestMain, where there is no testing.TB yet.
func BuildAll(dir string, names ...string) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	fakes := filepath.Join(root, "testdata", "fakes")
	if len(names) == 0 {
		entries, err := os.ReadDir(fakes)
		if err != nil {
			return fmt.Errorf("list fakes: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("build fakes: %w", err)
	}
	args := []string{"build", "-buildvcs=false", "-o", dir + string(filepath.Separator)}
	for _, name := range names {
		if name == "" || strings.ContainsAny(name, `/\`) {
			return fmt.Errorf("build fake %q: not a fake's name", name)
		}
		if _, err := os.Stat(filepath.Join(fakes, name, "main.go")); err != nil {
			return fmt.Errorf("build fake %q: %w", name, err)
		}
		args = append(args, "./testdata/fakes/"+name)
	}
	var out bytes.Buffer
	cmd := exec.Command(goTool(), args...)
	cmd.Dir = root
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build fakes %s: %w\n%s", strings.Join(names, ", "), err, out.Bytes())
	}
	return nil
}

// ModuleRoot returns the directory holding go.mod, found by walking up from
// the working directory (a package directory when run by go test).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Cleanup removes the binaries Build made for this process. Call it from
// TestMain after m.Run; without it they are removed by the next test binary
// that builds fakes.
func Cleanup() {
	_ = os.RemoveAll(filepath.Join(os.TempDir(), dirPrefix+strconv.Itoa(os.Getpid())))
}

func makeCacheDir() (string, error) {
	tmp := os.TempDir()
	sweep(tmp)
	dir := filepath.Join(tmp, dirPrefix+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("make fakes directory: %w", err)
	}
	return dir, nil
}

// sweep removes the directories of test processes that no longer exist.
func sweep(tmp string) {
	matches, _ := filepath.Glob(filepath.Join(tmp, dirPrefix+"*"))
	for _, m := range matches {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(m), dirPrefix))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			_ = os.RemoveAll(m)
		}
	}
}

// goTool is the go command that runs the tests, else the one on PATH.
func goTool() string {
	if goroot := os.Getenv("GOROOT"); goroot != "" {
		if p := filepath.Join(goroot, "bin", "go"); isFile(p) {
			return p
		}
	}
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Place puts the program at src at dst, executable, as a hard link where it
// can and as a copy where it cannot (another file system). A test that runs
// a program it wrote itself may find it "text file busy": a program a test
// beside it is starting holds the file open for writing between its fork and
// its exec. A hard link writes nothing.
func Place(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.Link(src, dst); err == nil {
		return
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
