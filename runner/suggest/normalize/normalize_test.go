package normalize

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/cmdcorpus"
	"github.com/clai-sh/clai/internal/golden"
)

// corpus reads testdata/commands.txt (see cmdcorpus.Read).
func corpus(t testing.TB) []string {
	t.Helper()
	lines, err := cmdcorpus.Read(filepath.Join("testdata", "commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestNormalizeGolden normalises every command of the corpus and compares the
// templates, args, tools and git flags with testdata/commands.golden; each
// command must also read back from its template and args, and normalise the
// same a second time.
func TestNormalizeGolden(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, line := range corpus(t) {
		c := Normalize(line)
		fmt.Fprintf(&b, "$ %q\n  template %q\n", line, c.Template)
		if len(c.Args) > 0 {
			fmt.Fprintf(&b, "  args     %q\n", c.Args)
		}
		fmt.Fprintf(&b, "  tool     %q git=%v\n", c.Tool, c.Git)
		if n := SlotCount(c.Template); n != len(c.Args) {
			t.Errorf("Normalize(%q): %d slots in %q, %d args", line, n, c.Template, len(c.Args))
		}
		if again := Normalize(line); fmt.Sprint(again) != fmt.Sprint(c) {
			t.Errorf("Normalize(%q) differs a second time: %+v then %+v", line, c, again)
		}
		if hereDocument(c.Template) {
			continue // its body is not kept: the template does not read back
		}
		if filled := Fill(c.Template, c.Args); Normalize(filled).Template != c.Template {
			t.Errorf("Fill(%q, %q) = %q, which normalises to %q", c.Template, c.Args, filled, Normalize(filled).Template)
		}
	}
	golden.Check(t, filepath.Join("testdata", "commands.golden"), b.String())
}

// hereDocument reports whether template redirects from a here-document.
func hereDocument(template string) bool {
	return strings.Contains(strings.ReplaceAll(template, "<<<", ""), "<<")
}

func TestFill(t *testing.T) {
	t.Parallel()
	cases := []struct {
		template string
		args     []string
		want     string
	}{
		{"make", nil, "make"},
		{"cp <path> <path>", []string{"a", "'b c'"}, "cp a 'b c'"},
		{"cp <path> <path>", []string{"a"}, "cp a <path>"},
		{"cp <path> <path>", nil, "cp <path> <path>"},
		{"cat < <path> > <path>", []string{"in", "out"}, "cat < in > out"},
		{"go test -count=<num> <path>", []string{"1", "./x"}, "go test -count=1 ./x"},
		{"a <b <num>", []string{"1"}, "a <b 1"},
		{"echo <num>", []string{"1", "2"}, "echo 1"},
	}
	for _, c := range cases {
		if got := Fill(c.template, c.args); got != c.want {
			t.Errorf("Fill(%q, %q) = %q, want %q", c.template, c.args, got, c.want)
		}
		if n := SlotCount(c.want); c.want == c.template && n != SlotCount(c.template) {
			t.Errorf("SlotCount(%q) = %d", c.want, n)
		}
	}
}

func TestSlots(t *testing.T) {
	t.Parallel()
	if got, want := fmt.Sprint(Slots("cp <path> <<num> x<msg>y <sha")), fmt.Sprint([]string{SlotPath, SlotNum, SlotMsg}); got != want {
		t.Errorf("Slots = %s, want %s", got, want)
	}
}

func TestSlotCount(t *testing.T) {
	t.Parallel()
	cases := map[string]int{"": 0, "make": 0, "<path>": 1, "a <num> <sha> <url> <msg> <path>": 5, "<<EOF": 0, "<pat> <path>": 1}
	for template, want := range cases {
		if got := SlotCount(template); got != want {
			t.Errorf("SlotCount(%q) = %d, want %d", template, got, want)
		}
	}
}

// TestNormalizeLongLines normalises lines of 100 KiB, of one word, many
// words, an open quote, a pipeline and nested quotes: each gives an answer,
// and the time a line takes grows with its length, not faster (bound by the
// ratio against a line an eighth as long: 8 when linear, 64 when quadratic;
// the bound, 40, leaves room for the collector's work and the caches).
func TestNormalizeLongLines(t *testing.T) {
	t.Parallel()
	shapes := map[string]func(n int) string{
		"one word":   func(n int) string { return "echo " + strings.Repeat("a", n) },
		"many words": func(n int) string { return "echo" + strings.Repeat(" ab/c 12", n/8) },
		"open quote": func(n int) string { return `echo "` + strings.Repeat("x y ", n/4) },
		"pipeline":   func(n int) string { return "a" + strings.Repeat(" | b x", n/6) },
		"quotes":     func(n int) string { return "echo " + strings.Repeat(`"a'b'c" `, n/8) },
	}
	const long = 100 << 10
	for name, shape := range shapes {
		short, full := shape(long/8), shape(long)
		if c := Normalize(full); SlotCount(c.Template) != len(c.Args) {
			t.Errorf("%s: %d slots, %d args", name, SlotCount(c.Template), len(c.Args))
		}
		ratio := fastest(func() { Normalize(full) }) / fastest(func() { Normalize(short) })
		t.Logf("%s: a line 8 times as long took %.1f times as long", name, ratio)
		if ratio > 40 {
			t.Errorf("%s: a line 8 times as long took %.0f times as long", name, ratio)
		}
	}
}

// fastest is the shortest of five runs of f, in seconds.
func fastest(f func()) float64 {
	best := 0.0
	for range 5 {
		start := time.Now()
		f()
		if d := time.Since(start).Seconds(); best == 0 || d < best {
			best = d
		}
	}
	return best
}

func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{"git commit -m x", "echo \"", "a && b | c", "cat <<EOF\nx\nEOF", "\xff", "--<path>=1", "for x in <num>; do :; done"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := Normalize(line)
		if n := SlotCount(c.Template); n != len(c.Args) {
			t.Fatalf("Normalize(%q): %d slots in %q, %d args %q", line, n, c.Template, len(c.Args), c.Args)
		}
		if again := Normalize(line); fmt.Sprint(again) != fmt.Sprint(c) {
			t.Fatalf("Normalize(%q) is not deterministic", line)
		}
	})
}
