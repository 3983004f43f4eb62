package playbooks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/internal/bounded"
	"github.com/goccy/go-yaml/parser"

	"github.com/clai-sh/clai/playbooks/diag"
)

// Inputs on which the YAML parser takes gigabytes or minutes are refused by the
// scan before it, at the place each bound is crossed. The parser is never
// reached: these run in milliseconds, where parsing them would not end in time.
func TestBoundsRefuseBeforeParsing(t *testing.T) {
	t.Parallel()
	lines := func(n int, line func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(line(i))
		}
		return b.String()
	}
	tests := []struct {
		name, src string
		want      string // POS: MESSAGE
	}{
		{"2 MB of [", "a: " + strings.Repeat("[", 2<<20), "1:1: the file is larger than 1 MiB, the most a playbook may hold"},
		{"100,000 nested [", "a: " + strings.Repeat("[", 100_000), "1:67: the playbook nests more than 64 levels deep here"},
		{"100,000 nested {", "a: " + strings.Repeat("{a: ", 100_000), "1:256: the playbook nests more than 64 levels deep here"},
		{"nested flow over lines", "a:\n" + strings.Repeat("  [\n", 100_000), "65:3: the playbook nests more than 64 levels deep here"},
		{"nested block mappings", lines(1_000, func(i int) string { return strings.Repeat(" ", i) + "k:\n" }), "65:65: the playbook nests more than 64 levels deep here"},
		{"nested block lists", lines(1_000, func(i int) string { return strings.Repeat(" ", i) + "-\n" }), "65:65: the playbook nests more than 64 levels deep here"},
		{"compact lists", strings.Repeat("- ", 100_000) + "x\n", "1:129: the playbook nests more than 64 levels deep here"},
		{"50,000 vars", "vars:\n" + lines(50_000, func(i int) string { return fmt.Sprintf("  v%d: x\n", i) }), "1002:3: this mapping holds more than 1000 keys"},
		{"100,000 top-level keys", lines(100_000, func(i int) string { return fmt.Sprintf("k%d: x\n", i) }), "1001:1: this mapping holds more than 1000 keys"},
		{"a wide flow mapping", "a: {" + lines(50_000, func(i int) string { return fmt.Sprintf("k%d: x, ", i) }) + "}", "1:8895: this mapping holds more than 1000 keys"},
		{"70,000 documents", strings.Repeat("--- a\n", 70_000), "1001:1: the file holds more than 1000 YAML documents"},
		{"300,000 values", "a: [" + strings.Repeat("x,", 300_000) + "]", "1:40001: the playbook holds more than 20000 values"},
		{"200,000 list entries", "a:\n" + strings.Repeat("- x\n", 200_000), "10001:3: the playbook holds more than 20000 values"},
		{"200,000 aliases", "a: &x 1\nb: [" + strings.Repeat("*x, ", 200_000) + "]", "2:79989: the playbook holds more than 20000 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pb, findings := Parse("big.yaml", []byte(tt.src))
			if pb != nil || len(findings) != 1 {
				t.Fatalf("got %d findings, want one: %.300v", len(findings), findings)
			}
			f := findings[0]
			if got := fmt.Sprintf("%d:%d: %s", f.Line, f.Col, f.Message); got != tt.want || f.Rule != "limits" || f.Severity != diag.Error || f.Hint == "" || f.File != "big.yaml" {
				t.Errorf("got  %s [%s] (hint %q)\nwant %s", got, f.Rule, f.Hint, tt.want)
			}
		})
	}
}

// Each bound is inclusive: a file at it is scanned through and parsed.
func TestBoundsAtTheLimit(t *testing.T) {
	t.Parallel()
	keys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "k%d: x\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name      string
		at, above string
	}{
		{"size", "a: " + strings.Repeat("x", MaxFileSize-3), "a: " + strings.Repeat("x", MaxFileSize-2)},
		{"flow depth", "a: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1), "a: " + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
		{"block depth", blockNest(MaxDepth), blockNest(MaxDepth + 1)},
		{"values", "a: [" + strings.Repeat("x,", MaxNodes-2) + "]", "a: [" + strings.Repeat("x,", MaxNodes-1) + "]"},
		{"keys", keys(MaxKeys), keys(MaxKeys + 1)},
		{"documents", strings.Repeat("--- a\n", MaxKeys), strings.Repeat("--- a\n", MaxKeys+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if f, exceeded := checkBounds("f.yaml", []byte(tt.at)); exceeded {
				t.Errorf("at the limit: %v", f)
			}
			if _, exceeded := checkBounds("f.yaml", []byte(tt.above)); !exceeded {
				t.Errorf("above the limit: no finding")
			}
			if _, err := parser.ParseBytes([]byte(tt.at), 0); err != nil {
				t.Errorf("at the limit, the parser fails: %v", err)
			}
		})
	}
}

// blockNest is n block mappings, each inside the one before.
func blockNest(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
	}
	fmt.Fprintf(&b, "%sk: v\n", strings.Repeat(" ", n-1))
	return b.String()
}

// Real playbooks near the bounds load: one with as many variables as a mapping
// may hold, one with steps and tests up to near the bound on values.
func TestPlaybookNearTheBoundsLoads(t *testing.T) {
	t.Parallel()
	var vars strings.Builder
	vars.WriteString("version: 1\nname: vars\nspawn: {command: [prog]}\nvars:\n")
	for i := range MaxKeys {
		fmt.Fprintf(&vars, "  v%d: \"value %d\"\n", i, i)
	}
	vars.WriteString("steps:\n  - {expect: \"Name:\", line: \"{{ vars.v999 }}\"}\n")

	var steps strings.Builder
	steps.WriteString("version: 1\nname: steps\nspawn: {command: [prog]}\nvars: {v: value}\nsteps:\n")
	for i := range 1_200 {
		fmt.Fprintf(&steps, "  - {name: s%d, expect: \"prompt %d\", line: \"{{ vars.v }}\"}\n", i, i)
	}
	steps.WriteString("rules:\n  - {name: yes, match: 'Proceed\\? \\[y/n\\]', line: y, limit: 1}\ntests:\n")
	for i := range 600 {
		fmt.Fprintf(&steps, "  - {name: t%d, output: \"prompt 0\\n\", expect: {sent: \"value\\r\"}}\n", i)
	}
	for _, src := range []string{vars.String(), steps.String()} {
		s := &boundsScanner{src: []byte(src), line: 1}
		s.scan()
		if s.exceeded != nil {
			t.Fatal(s.exceeded.message)
		}
		pb, findings := Parse("big.yaml", []byte(src))
		if pb == nil {
			t.Fatalf("%.500v", findings)
		}
		t.Logf("%s: %d values, %d vars, %d steps, %d tests", pb.Name, s.nodes, len(pb.Vars), len(pb.Steps), len(pb.Tests))
	}
}

// The scan tells YAML's parts apart: brackets, dashes, colons and indentation in
// comments, quoted scalars, block scalars, plain scalars and their continuation
// lines are text, not structure, so a file full of them is within every bound.
// (Only the brackets of one text may not nest deeper than MaxDepth: see
// TestBoundsBracketsOfText.)
func TestBoundsUnderstandYAML(t *testing.T) {
	t.Parallel()
	// Brackets 60 deep, then closed: read as structure, with the key lines and
	// the lines of a scalar, they would be over every bound.
	many := strings.Repeat("[{", 30) + strings.Repeat("}]", 30)
	keyLines := func(indent string) string {
		var b strings.Builder
		for i := range 3 * MaxKeys {
			if i%3 == 0 { // as many as text may hold
				fmt.Fprintf(&b, "%sk%d: [x] %s\n", indent, i, many)
			} else {
				fmt.Fprintf(&b, "%s- [x] %s\n", indent, many)
			}
		}
		return b.String()
	}
	tests := []struct{ name, src string }{
		{"comments", "a: 1 # " + many + "\n# " + many + "\nb: [1, # " + many + "\n  2]\n"},
		{"double quoted", `a: "` + many + `\" ` + many + `"` + "\nb: [\"" + many + "\"]\n"},
		{"single quoted", "a: '" + many + "'' " + many + "'\nb: {'" + many + "': x}\n"},
		{"quoted over lines", "a: \"x\n" + keyLines("  ") + "  \"\nb: 'x\n" + keyLines("") + "'\n"},
		{"quoted keys", "\"a: [\": x\n'b: {': y\n"},
		{"literal block", "a: |\n" + keyLines("  ") + "b: x\n"},
		{"folded block with indicators", "a: >-\n" + keyLines("    ") + "b: |2+\n" + keyLines("   ") + "c: x\n"},
		{"block in a list", "- |\n" + keyLines("  ") + "- x\n"},
		{"block after a tag and anchor", "a: !!str &x |\n" + keyLines("  ") + "b: *x\n"},
		{"block at the top", "--- |\n" + keyLines("  ") + "...\n"},
		{"plain with brackets", "a: b" + many + "\nc: d:e" + many + "\n"},
		{"plain over lines", "a: x\n" + strings.Repeat("  "+many+" y: z\n", MaxKeys-1) + strings.Repeat("  - "+many+"\n", MaxKeys) + "b: y\n"},
		{"urls and colons", "a: http://x.example/[a]\nb: {c: 'd:e', f: g:h}\n"},
		{"tabs", "a:\t[1,\t2]\nb: \"\t" + many + "\"\n"},
		{"crlf", "a: |\r\n  " + many + "\r\nb: [1,\r\n  2]\r\n"},
		{"documents", "%YAML 1.2\n---\na: 1\n...\n---\nb: '" + many + "'\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if f, exceeded := checkBounds("f.yaml", []byte(tt.src)); exceeded {
				t.Errorf("%v", f)
			}
		})
	}
}

// The brackets of one text nest at most MaxDepth deep: where a file is not valid
// YAML, the parser can take a scalar's text for structure, so text cannot hide a
// deep nest from the scan. Comments are not text the parser reads.
func TestBoundsBracketsOfText(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", MaxDepth+1)
	for _, src := range []string{
		"a: x" + deep,
		"a: \"" + deep + "\"",
		"a: '" + deep + "'",
		"a: \"x\n" + strings.Repeat("  [\n", MaxDepth+1) + "\"",
		"a: |\n" + strings.Repeat("  [\n", MaxDepth+1),
		"a: x\n" + strings.Repeat("  y [\n", MaxDepth+1),
		"&a x\nkey: >-\n  " + deep,
	} {
		if f, exceeded := checkBounds("f.yaml", []byte(src)); !exceeded || f.Message != "the brackets of this text nest more than 64 levels deep" {
			t.Errorf("%.60q: %v", src, f)
		}
	}
	if f, exceeded := checkBounds("f.yaml", []byte("a: 1 # "+deep+"\n# "+deep+"\n")); exceeded {
		t.Errorf("comments: %v", f)
	}
}

// Files that are not valid YAML where the parser reads as structure what a YAML
// reader would take for text, found by feeding the parser random fragments
// before a deep or wide payload: each is refused, since each made the parser
// slow with the square of the payload.
func TestBoundsParserReadings(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 5_000)
	var keys strings.Builder
	for i := range 5_000 {
		fmt.Fprintf(&keys, "k%d: x\n", i)
	}
	for _, src := range []string{
		"..." + deep,                               // a document end, whatever follows
		"---''a\n" + strings.Repeat("- ", 5_000),   // a document start, whatever follows
		"*a " + deep,                               // an alias, then a collection
		"\"a\"]" + deep,                            // a stray bracket, then a collection
		"`" + deep,                                 // a reserved indicator starts no scalar
		"[a]: b\n`#---" + deep,                     // nor does it start a comment
		">\\*a ]\n" + deep,                         // a block scalar header with junk opens none
		"a: |\n  x\n\t\t" + deep,                   // a tab is not indentation
		"\"\n---\n" + deep,                         // a document marker ends a quoted scalar
		"{ #\n" + strings.Repeat("--- a\n", 5_000), // and a flow collection
		"&a x\n|-,'|&a " + keys.String(),           // lines that read as keys
		"a: x\n[" + strings.Repeat("- ", 5_000),    // list marks in a flow scalar
		"%TAG ! x " + deep,                         // a directive's line
	} {
		if f, exceeded := checkBounds("f.yaml", []byte(src)); !exceeded {
			t.Errorf("%.40q: no finding", src)
		} else if f.Rule != "limits" {
			t.Errorf("%.40q: %v", src, f)
		}
	}
}

// The scan never counts less than the parser builds: for the repository's own
// YAML and for random documents in every style, its depth and number of values
// are at least the parsed tree's, and its depth at most one more; where it finds
// a bound exceeded, the parsed tree is over it too.
func TestBoundsAgreeWithParser(t *testing.T) {
	t.Parallel()
	var srcs []string
	for _, glob := range []string{"presets/*.yaml", "../examples/*.yaml", "../testdata/*/*.yaml", "../testdata/*/*/*.yaml"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, string(src))
		}
	}
	if len(srcs) < 20 {
		t.Fatalf("only %d files", len(srcs))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2_000 {
		var b strings.Builder
		g := &yamlGen{rng: rng, b: &b}
		g.block(0, 0)
		srcs = append(srcs, b.String())
	}
	parsed := 0
	for _, src := range srcs {
		file, err := parser.ParseBytes([]byte(src), 0)
		if err != nil {
			continue
		}
		parsed++
		var m treeMeasure
		for _, doc := range file.Docs {
			m.node(doc.Body, 0)
		}
		s := &boundsScanner{src: []byte(src), line: 1}
		s.scan()
		if s.exceeded != nil {
			if m.depth <= MaxDepth && m.nodes <= MaxNodes && m.keys <= MaxKeys {
				t.Errorf("scan: %s, but the parser builds depth %d, %d values, %d keys, in\n%.500s", s.exceeded.message, m.depth, m.nodes, m.keys, src)
			}
			continue
		}
		if s.deepest < m.depth || s.deepest > m.depth+1 || s.nodes < m.nodes {
			t.Errorf("scan: depth %d, %d values (%v); parser: depth %d, %d values, in\n%s", s.deepest, s.nodes, s.exceeded, m.depth, m.nodes, src)
		}
	}
	if parsed < len(srcs)/2 {
		t.Errorf("only %d of %d documents parse: the generator writes invalid YAML", parsed, len(srcs))
	}
}

// treeMeasure is the depth, the number of values and the most keys of a mapping
// of a parsed YAML tree.
type treeMeasure struct{ depth, nodes, keys int }

func (m *treeMeasure) node(n ast.Node, depth int) {
	switch v := n.(type) {
	case nil:
	case *ast.TagNode:
		m.node(v.Value, depth)
	case *ast.AnchorNode:
		m.node(v.Value, depth)
	case *ast.MappingNode:
		m.depth = max(m.depth, depth+1)
		m.keys = max(m.keys, len(v.Values))
		for _, kv := range v.Values {
			m.nodes++
			m.node(kv.Value, depth+1)
		}
	case *ast.MappingValueNode:
		m.depth = max(m.depth, depth+1)
		m.nodes++
		m.node(v.Value, depth+1)
	case *ast.SequenceNode:
		m.depth = max(m.depth, depth+1)
		for _, e := range v.Values {
			m.node(e, depth+1)
		}
	default:
		m.nodes++
	}
}

// yamlGen writes random YAML documents: block and flow collections nested in
// each other, and scalars of every style holding YAML's indicators as text.
type yamlGen struct {
	rng *rand.Rand
	b   *strings.Builder
}

var genTexts = []string{"x", "a[b", "c{d}", "e, f", "g #h", "i: j", "- k", "|l", ">m", "n'o", `p"q`, "&r", "*s", "!t", "u\tv"}

func (g *yamlGen) text() string { return genTexts[g.rng.IntN(len(genTexts))] }

// scalar writes a scalar that stays on the line: plain when the text allows it,
// else quoted.
func (g *yamlGen) scalar(flow bool) string {
	t := g.text()
	switch g.rng.IntN(4) {
	case 0:
		return `"` + strings.ReplaceAll(strings.ReplaceAll(t, `\`, `\\`), `"`, `\"`) + `"`
	case 1:
		return "'" + strings.ReplaceAll(t, "'", "''") + "'"
	}
	if flow || strings.ContainsAny(t, "#:-|>'\"&*!{}[],\t") {
		return fmt.Sprintf("w%d", g.rng.IntN(100))
	}
	return t
}

// flow writes a flow collection of depth at most d.
func (g *yamlGen) flow(d int) string {
	n := g.rng.IntN(4)
	var parts []string
	mapping := g.rng.IntN(2) == 0
	for i := range n {
		v := g.scalar(true)
		if d > 0 && g.rng.IntN(3) == 0 {
			v = g.flow(d - 1)
		}
		if mapping {
			v = fmt.Sprintf("k%d: %s", i, v)
		}
		parts = append(parts, v)
	}
	sep := ", "
	if g.rng.IntN(4) == 0 {
		sep = ",\n   "
	}
	if mapping {
		return "{" + strings.Join(parts, sep) + "}"
	}
	return "[" + strings.Join(parts, sep) + "]"
}

// value writes what follows "key:" or "- " at indentation indent.
func (g *yamlGen) value(indent, depth int) {
	pad := strings.Repeat(" ", indent+2)
	switch r := g.rng.IntN(10); {
	case r < 3 && depth < 6:
		g.b.WriteString("\n")
		g.block(indent+2, depth+1)
	case r < 5:
		g.b.WriteString(" " + g.flow(3) + "\n")
	case r < 6:
		g.b.WriteString(" " + []string{"|", ">", "|-", ">+", "|2"}[g.rng.IntN(5)] + "\n")
		for range 1 + g.rng.IntN(3) {
			g.b.WriteString(pad + g.text() + " " + g.flow(2) + "\n")
		}
	case r < 7:
		g.b.WriteString(" &a" + fmt.Sprint(g.rng.IntN(9)) + " " + g.scalar(false) + " # " + g.text() + "\n")
	default:
		g.b.WriteString(" " + g.scalar(false) + "\n")
	}
}

// block writes a block mapping or list at indentation indent.
func (g *yamlGen) block(indent, depth int) {
	pad := strings.Repeat(" ", indent)
	seq := g.rng.IntN(2) == 0
	for i := range 1 + g.rng.IntN(4) {
		if seq {
			g.b.WriteString(pad + "-")
		} else {
			fmt.Fprintf(g.b, "%sk%d:", pad, i)
		}
		g.value(indent, depth)
		if g.rng.IntN(5) == 0 {
			g.b.WriteString(pad + "# " + g.text() + "\n")
		}
	}
}

// A place (a step, case, rule or danger rule) costs the same whatever the number
// of variables: their struct is built once a playbook, not once a place, so a
// playbook of many places and many variables within the bounds loads in time
// that grows with their sum, not their product. Counted in allocations, which
// is why the test does not run in parallel with others.
func TestPlaceCostIndependentOfVars(t *testing.T) {
	src := func(vars, places int) []byte {
		var b strings.Builder
		b.WriteString("version: 1\nname: places\nspawn: {command: [prog]}\nvars:\n")
		for i := range vars {
			fmt.Fprintf(&b, "  v%d: x\n", i)
		}
		b.WriteString("rules:\n")
		for i := range places {
			fmt.Fprintf(&b, "  - {name: r%d, match: \"rule %d\", line: \"{{ vars.v0 }}\", limit: 1}\n", i, i)
		}
		return []byte(b.String())
	}
	perPlace := func(vars int) float64 {
		few, many := src(vars, 10), src(vars, 40)
		a := testing.AllocsPerRun(3, func() { Parse("p.yaml", few) })
		b := testing.AllocsPerRun(3, func() { Parse("p.yaml", many) })
		return (b - a) / 30
	}
	if few, many := perPlace(10), perPlace(400); many > few+100 {
		t.Errorf("a place allocates %.0f times with 10 variables, %.0f with 400", few, many)
	}
}

func TestMaxFileSizeText(t *testing.T) {
	t.Parallel()
	if got := bounded.Size(MaxFileSize); got != maxFileSizeText {
		t.Fatalf("MaxFileSize is %s, its text %q", got, maxFileSizeText)
	}
}
