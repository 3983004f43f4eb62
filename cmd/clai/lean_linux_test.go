package main

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
)

// leanEnv is a sessions folder of the test's own for the lean clai at bin,
// with no user config and PATH holding only /usr/bin and /bin: no full clai
// is found there.
func leanEnv(t *testing.T, bin string) *sessionsEnv {
	t.Helper()
	e := newSessionsEnv(t)
	e.bin = bin
	e.env = append(e.env, "PATH=/usr/bin:/bin", "HOME="+e.dir, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"))
	return e
}

// parentPlaybook writes a playbook whose program says which program runs
// it (the file its parent, clai, runs) and ends.
func parentPlaybook(t *testing.T, dir, name string) string {
	t.Helper()
	pb := filepath.Join(dir, name+".yaml")
	yaml := fmt.Sprintf("version: 1\nname: %s\nspawn:\n  shell: 'echo parent=$(readlink /proc/$PPID/exe)'\nsteps:\n  - expect: parent=\n", name)
	if err := os.WriteFile(pb, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return pb
}

// TestLeanClaiRunsAloneAndHandsTheRestOver: the lean clai runs a headless
// run that waits for no answer itself, and hands a run that may wait for a
// person, and the commands of the human loop, to the full clai beside it:
// the same process, the full clai's program (docs/performance.md).
func TestLeanClaiRunsAloneAndHandsTheRestOver(t *testing.T) {
	t.Parallel()
	lean := testprog.BuildCommand(t, "./cmd/clai")
	full := filepath.Join(filepath.Dir(lean), testprog.Companion)
	e := leanEnv(t, lean)
	dir := e.dir
	pb := parentPlaybook(t, dir, "parent")

	out, errs, code := e.clai(t, "run", "--log", filepath.Join(dir, "alone.log"), pb)
	if code != 0 || !strings.Contains(out, "parent="+lean) {
		t.Errorf("a run alone: exit %d, want 0 with the program's parent the lean clai %s\n%s%s", code, lean, out, errs)
	}
	out, errs, code = e.clai(t, "run", "--remote", "--log", filepath.Join(dir, "remote.log"), pb)
	if code != 0 || !strings.Contains(out, "parent="+full) {
		t.Errorf("a run that may wait for an answer: exit %d, want 0 with the program's parent the full clai %s\n%s%s", code, full, out, errs)
	}
	// The full clai's own answer: no hub runs here.
	out, errs, code = e.clai(t, "hub", "status")
	if code != 1 || !strings.Contains(errs, "no hub runs") {
		t.Errorf("clai hub status, handed over: exit %d, want 1 and that no hub runs\n%s%s", code, out, errs)
	}
	out, _, code = e.clai(t, "--help")
	for _, cmd := range []string{"dashboard", "daemon", "hub", "history"} {
		if code != 0 || !strings.Contains(out, "\n   "+cmd+" ") {
			t.Errorf("clai --help of the lean clai does not list %s (exit %d):\n%s", cmd, code, out)
		}
	}
}

// TestLeanClaiWithoutTheFullOneSaysSo: a lean clai with no full clai beside
// it or on PATH runs what it runs alone, and refuses the rest with exit 1
// and what to do, having started nothing.
func TestLeanClaiWithoutTheFullOneSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lean := filepath.Join(dir, "clai")
	testprog.Place(t, testprog.BuildCommand(t, "./cmd/clai"), lean)
	e := leanEnv(t, lean)
	pb := parentPlaybook(t, dir, "parent")
	if out, errs, code := e.clai(t, "run", "--log", filepath.Join(dir, "alone.log"), pb); code != 0 || !strings.Contains(out, "parent="+lean) {
		t.Errorf("a run alone: exit %d, want 0\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"run", "--remote", "--log", filepath.Join(dir, "remote.log"), pb},
		{"daemon", "--help"},
		{"suggest", "forget", "--all"},
	} {
		out, errs, code := e.clai(t, args...)
		if code != 1 || out != "" || !strings.Contains(errs, "needs the full clai, clai-full") || !strings.Contains(errs, "make build") {
			t.Errorf("clai %s: exit %d, want 1 and where to find the full clai\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "remote.log")); err == nil {
		t.Error("the run handed over wrote its log before it found no full clai")
	}
}

// TestTheLeanClaiLinksNoHumanLoop: the lean clai links none of the human
// loop's packages nor the heavy libraries under them, which every command
// would pay for at start-up (docs/performance.md#two-binaries). A change that
// makes the lean build reach one fails here, naming the way it is reached.
func TestTheLeanClaiLinksNoHumanLoop(t *testing.T) {
	t.Parallel()
	root, err := testprog.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "go", "list", "-deps", "-tags", testprog.BuildTags()+","+testprog.LeanTag,
		"-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./cmd/clai")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	importers := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			importers[imp] = append(importers[imp], fields[0])
		}
	}
	const clai = "github.com/clai-sh/clai/"
	// Packages, and modules (ending in /...) whose every package is out.
	forbidden := []string{
		clai + "runner/humanloop", clai + "runner/answerer", clai + "runner/suggest/learned",
		clai + "runner/notify", clai + "runner/channel", clai + "runner/hub", clai + "runner/dashboard",
		clai + "runner/suggest/daemon", clai + "runner/triage",
		"github.com/nicholas-fedor/shoutrrr/...", "modernc.org/sqlite/...", "github.com/chromedp/chromedp/...",
	}
	for _, f := range forbidden {
		module, whole := strings.CutSuffix(f, "/...")
		for pkg, by := range importers {
			if pkg == module || whole && strings.HasPrefix(pkg, module+"/") {
				t.Errorf("the lean clai links %s (imported by %s)", pkg, strings.Join(by, ", "))
			}
		}
	}
}

// TestTheLeanClaiLinksNoTLS: the lean clai's code holds no TLS handshake
// and no certificate checks. The session API reads and writes HTTP without
// net/http's request and response, which carry a TLS connection's state:
// clai's command line reflects on methods (its help templates), so every
// method of a type they reach stays linked, x509's and crypto's with them
// (docs/performance.md#memory). The symbols are read from the binary built.
func TestTheLeanClaiLinksNoTLS(t *testing.T) {
	t.Parallel()
	f, err := elf.Open(testprog.BuildCommand(t, "./cmd/clai"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, s := range syms {
		linked[s.Name] = true
	}
	if !linked["main.main"] {
		t.Fatal("the binary's symbols hold no main.main: the test reads no symbols")
	}
	for _, name := range []string{"crypto/x509.(*Certificate).Verify", "crypto/tls.(*Conn).Handshake", "net/http.ReadRequest", "net/http.ReadResponse"} {
		if linked[name] {
			t.Errorf("the lean clai links %s", name)
		}
	}
}
