// Package layering holds the one table of which of clai's packages may import
// which, and checks the module's import graph against it: a package that
// breaks a rule fails the test with the rule's name. The same graph writes
// the imports column of docs/architecture.md, which the test holds equal.
// Beside it, the other rules of the module's shape: no non-test file over
// maxFileLines, and a doc comment on every exported name.
package layering

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module's path; packages are named below without it.
const module = "github.com/clai-sh/clai"

// leaves are the packages anyone may import: each imports no package of
// clai's but other leaves.
var leaves = []string{
	"internal/bounded",
	"internal/glyph",
	"internal/lazyre",
	"internal/rundir",
	"playbooks/diag",
	"playbooks/pattern",
	"runner/driver/exitstatus",
	"runner/driver/keys",
	"runner/exitcode",
	"runner/suggest/secretfilter",
}

// rule is one direction the import graph may not take.
type rule struct {
	// name is what a failure says.
	name string
	// from are the packages the rule holds for; "x/..." is x and those
	// under it.
	from []string
	// deny are the packages they may not import; "x/..." as in from.
	deny []string
	// allow are exceptions to deny; except are exceptions to from.
	allow, except []string
	// reach makes the rule hold for every package of clai's that from
	// reaches, not only their own imports.
	reach bool
}

// rules is the table.
func rules() []rule {
	return []rule{
		{name: "leaves import no package of clai's but other leaves", from: leaves, deny: []string{"..."}, allow: leaves},
		{name: "the model knows no runner", from: []string{"playbooks/..."}, deny: []string{"runner/..."},
			allow: []string{"runner/driver/keys", "runner/driver/exitstatus", "runner/suggest/secretfilter"}},
		{name: "drivers know no model", from: []string{"runner/driver/..."}, deny: []string{"playbooks/..."}, allow: []string{"playbooks/diag", "playbooks/pattern"}},
		{name: "the engine knows no operating system, clock, driver or logger", from: []string{"runner/engine"}, reach: true,
			deny: []string{"=os", "=os/exec", "=os/signal", "=net", "=net/http", "=syscall", "=golang.org/x/sys/unix", "=go.uber.org/zap/...",
				"runner", "runner/eventlog", "runner/driver", "runner/driver/pty", "runner/driver/tmux", "internal/bounded", "internal/fakeclock"}},
		{name: "remote parts talk to sessions only through the question vocabulary",
			from: []string{"runner/channel", "runner/notify", "runner/answerer", "runner/triage", "runner/dashboard", "runner/hub", "runner/hublink"},
			deny: []string{"runner", "runner/sessions", "runner/humanloop", "runner/engine", "runner/driver/pty", "runner/driver/tmux"}},
		{name: "a question source reaches a run only through its contract", from: []string{"runner/askuser"},
			deny: []string{"runner", "runner/sessions", "runner/humanloop"}},
		{name: "the session knows no remote part", from: []string{"runner", "runner/engine", "runner/screen", "runner/report", "runner/eventlog"},
			deny: []string{"runner/channel/...", "runner/notify", "runner/answerer/...", "runner/dashboard", "runner/humanloop", "runner/suggest/learned", "runner/hub", "runner/hublink"}},
		{name: "the history engine knows no run", from: []string{"runner/suggest/..."}, except: []string{"runner/suggest/learned"},
			deny: []string{"runner", "runner/engine", "runner/humanloop", "runner/sessions", "runner/channel/...", "runner/notify", "runner/dashboard"}},
		{name: "learned answers stand apart from channels, models and the history engine", from: []string{"runner/suggest/learned"},
			deny: []string{"runner/answerer/...", "runner/channel/...", "runner/notify", "runner/suggest/daemon", "runner/suggest/store", "runner/suggest/score", "runner/suggest/hookproto"}},
		{name: "a run's link to the hub knows no channel", from: []string{"runner/hublink"}, deny: []string{"runner/..."}, allow: []string{"runner/ask"}},
		{name: "the hooks' client stays small", from: []string{"cmd/clai-hook"}, reach: true,
			deny: []string{"..."}, allow: []string{"cmd/clai-hook", "runner/suggest/hookproto", "internal/peer", "internal/glyph", "internal/rundir"}},
		{name: "the command line maps outcomes to exit codes through their table, not the engine", from: []string{"cmd/..."}, deny: []string{"runner/engine"}},
		{name: "nothing imports a command", from: []string{"..."}, deny: []string{"cmd/..."}},
	}
}

// pkg is what go list says of a package of clai's.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// graph is the module's packages by short name, each with its imports:
// clai's own by their short names, the others (the standard library's,
// other modules') by their paths after an "=" (so that "=os" is os, never
// a package of clai's).
type graph map[string][]string

// external is the pattern of an import from outside the module.
func external(path string) string { return "=" + path }

// loadGraph runs go list on the module.
func loadGraph(t *testing.T) graph {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Standard", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := graph{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name, ok := short(p.ImportPath)
		if !ok {
			continue
		}
		own := []string{}
		for _, imp := range p.Imports {
			if s, ok := short(imp); ok {
				own = append(own, s)
			} else {
				own = append(own, external(imp))
			}
		}
		slices.Sort(own)
		g[name] = own
	}
	return g
}

// short is path without the module's prefix, and whether it is clai's.
func short(path string) (string, bool) {
	if path == module {
		return ".", true
	}
	s, ok := strings.CutPrefix(path, module+"/")
	return s, ok
}

// matches reports whether name is one of patterns ("x/..." is x and those
// under it; "..." is every package of clai's; "=x" is x from outside the
// module).
func matches(name string, patterns []string) bool {
	for _, p := range patterns {
		if p == "..." && !strings.HasPrefix(name, "=") || p == name {
			return true
		}
		if base, ok := strings.CutSuffix(p, "/..."); ok && (name == base || strings.HasPrefix(name, base+"/")) {
			return true
		}
	}
	return false
}

// reached is every package of clai's that from reaches, from included.
func (g graph) reached(from string) []string {
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range g[p] {
			if _, ok := g[imp]; ok && !seen[imp] {
				seen[imp] = true
				queue = append(queue, imp)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// names are g's packages, sorted.
func (g graph) names() []string {
	names := make([]string, 0, len(g))
	for p := range g {
		names = append(names, p)
	}
	slices.Sort(names)
	return names
}

// violations are the imports of g that break r, one line each.
func (g graph) violations(r rule) []string {
	var out []string
	for _, p := range g.names() {
		if !matches(p, r.from) || matches(p, r.except) {
			continue
		}
		holders := []string{p}
		if r.reach {
			holders = g.reached(p)
		}
		for _, h := range holders {
			for _, imp := range g[h] {
				if matches(imp, r.deny) && !matches(imp, r.allow) {
					via := ""
					if h != p {
						via = fmt.Sprintf(" (reached from %s)", p)
					}
					out = append(out, fmt.Sprintf("%s imports %s%s", h, strings.TrimPrefix(imp, "="), via))
				}
			}
		}
	}
	return out
}

func TestLayering(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules() {
		for _, v := range g.violations(r) {
			t.Errorf("%s: %s", r.name, v)
		}
	}
}

// TestTheRulesCatchABreak: each rule finds the import that breaks it in a
// graph made to break it, so that no rule of the table holds vacuously.
func TestTheRulesCatchABreak(t *testing.T) {
	real := loadGraph(t)
	for _, r := range rules() {
		from := firstOf(real, func(p string) bool { return matches(p, r.from) && !matches(p, r.except) })
		bad := firstOf(real, func(p string) bool { return matches(p, r.deny) && !matches(p, r.allow) && p != from })
		if from == "" || bad == "" {
			t.Errorf("%s: holds for no package of the module (%q), or denies none (%q)", r.name, from, bad)
			continue
		}
		broken := graph{}
		for p, imps := range real {
			broken[p] = slices.Clone(imps)
		}
		broken[from] = append(broken[from], bad)
		if len(broken.violations(r)) == 0 {
			t.Errorf("%s: %s importing %s goes unseen", r.name, from, bad)
		}
	}
}

// firstOf is the first of g's packages, in order, that keep holds for.
func firstOf(g graph, keep func(string) bool) string {
	for _, p := range g.names() {
		if keep(p) {
			return p
		}
	}
	return ""
}

// architecture is the page whose package table's last column, and whose
// list of rules, the graph and the table write.
const architecture = "../../docs/architecture.md"

// Marks around the generated list of rules on the architecture page.
const (
	rulesBegin = "<!-- the layering rules: written by internal/layering's test -->"
	rulesEnd   = "<!-- end of the layering rules -->"
)

// importsCell is the imports column of p's row: its imports of clai's
// own, or "—".
func importsCell(g graph, p string) string {
	var imps []string
	for _, imp := range g[p] {
		if _, ok := g[imp]; ok {
			imps = append(imps, imp)
		}
	}
	if len(imps) == 0 {
		return "—"
	}
	quoted := make([]string, len(imps))
	for i, imp := range imps {
		quoted[i] = "`" + imp + "`"
	}
	return strings.Join(quoted, ", ")
}

// rulesText is the list of rules as the page shows it.
func rulesText() string {
	var b strings.Builder
	b.WriteString(rulesBegin + "\n")
	for _, r := range rules() {
		from := patternList(r.from)
		if len(r.from) == 1 && r.from[0] == "..." {
			from = "every package of clai's"
		}
		fmt.Fprintf(&b, "- **%s**: %s", r.name, from)
		if len(r.except) > 0 {
			fmt.Fprintf(&b, " (but %s)", patternList(r.except))
		}
		if r.reach {
			b.WriteString(" and every package of clai's it reaches")
		}
		if len(r.deny) == 1 && r.deny[0] == "..." {
			fmt.Fprintf(&b, " import no package of clai's but %s", patternList(r.allow))
		} else {
			fmt.Fprintf(&b, " import no %s", patternList(r.deny))
			if len(r.allow) > 0 {
				fmt.Fprintf(&b, " but the leaves %s", patternList(r.allow))
			}
		}
		b.WriteString(".\n")
	}
	b.WriteString(rulesEnd)
	return b.String()
}

func patternList(patterns []string) string {
	if len(patterns) == 1 && patterns[0] == "..." {
		return "package of clai's"
	}
	quoted := make([]string, len(patterns))
	for i, p := range patterns {
		quoted[i] = "`" + strings.TrimPrefix(p, "=") + "`"
	}
	return strings.Join(quoted, ", ")
}

// writePage is the architecture page src with its imports column and its
// rules as g and the table make them.
func writePage(g graph, src string) (string, error) {
	lines := strings.Split(src, "\n")
	for i, line := range lines {
		cells := strings.Split(line, " | ")
		if len(cells) != 3 || !strings.HasPrefix(cells[0], "| `") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(cells[0], "| `"), "`")
		if _, ok := g[name]; !ok {
			continue
		}
		cells[2] = importsCell(g, name) + " |"
		lines[i] = strings.Join(cells, " | ")
	}
	out := strings.Join(lines, "\n")
	before, rest, ok := strings.Cut(out, rulesBegin)
	_, after, ok2 := strings.Cut(rest, rulesEnd)
	if !ok || !ok2 {
		return "", fmt.Errorf("the page has no %q … %q", rulesBegin, rulesEnd)
	}
	return before + rulesText() + after, nil
}

// TestTheArchitecturePageIsTheGraph: the imports column of the package
// table in docs/architecture.md, and its list of rules, are what the graph
// and the table say. CLAI_WRITE_ARCHITECTURE=1 writes them.
func TestTheArchitecturePageIsTheGraph(t *testing.T) {
	g := loadGraph(t)
	src, err := os.ReadFile(architecture)
	if err != nil {
		t.Fatal(err)
	}
	want, err := writePage(g, string(src))
	if err != nil {
		t.Fatal(err)
	}
	if want == string(src) {
		return
	}
	if os.Getenv("CLAI_WRITE_ARCHITECTURE") == "1" {
		if err := os.WriteFile(architecture, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/architecture.md's imports column or rules differ from the import graph; write them with CLAI_WRITE_ARCHITECTURE=1 go test ./internal/layering")
}

// maxFileLines is the most lines a non-test Go file of clai's may have: a
// longer one holds more than one job, and is split by them.
const maxFileLines = 600

// eachSource calls fn with the path, relative to the module's root, and the
// contents of each of the module's non-test Go files (testdata and hidden
// folders left out).
func eachSource(t *testing.T, fn func(rel string, src []byte)) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(rel, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNoFileOverMaxLines(t *testing.T) {
	eachSource(t, func(rel string, src []byte) {
		if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
			t.Errorf("%s has %d lines, more than %d: split it by what its parts do", rel, n, maxFileLines)
		}
	})
}
