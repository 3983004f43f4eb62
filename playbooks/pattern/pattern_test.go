package pattern

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// TestFindAnchoredAgreesWithSearch checks that a pattern with a literal prefix,
// found by trying the anchored expression where the prefix appears, finds
// exactly what a search of the whole text finds: the same match and groups.
func TestFindAnchoredAgreesWithSearch(t *testing.T) {
	exprs := []string{
		`Enter code (?P<code>\d+) \[\d+\]: $`,
		`ab+c`,
		`ab*?`,
		`ab(c|cd)(d?)`,
		`a\b`,
		`a\B.`,
		`ab$`,
		`(?m)ab$`,
		`(?U)ab+`,
		`a(?:b|)c?`,
		`aé(\w*)`,
		`a.b`,
		`(?s)a.b`,
		`ab\z`,
		`(a)(b)?(c)*`,
		`a.*b`,
		`a[^\n]*c\b`,
		`a.\b`,
		`aé?.$`,
		`a[^b]{0,2}\z`,
		`a(?i:k)?\B`,
		`(?m)a.{1,3}$`,
		`git\s+push\b[^\n]*\s(--force|-f)\b`,
	}
	alphabet := []string{"a", "b", "c", "d", "é", "\n", " ", "\xff", "1", "Enter code 12 [3]: ", "git push ", "-f", "K", "\u212a"}
	r := rand.New(rand.NewPCG(3, 4))
	handedOver := 0
	for _, src := range exprs {
		re := regexp.MustCompile(src)
		p := &Pattern{Kind: Regex, Source: src}
		p.setRegexp(re)
		if p.anchored == nil {
			t.Fatalf("%s: not anchored; the test proves nothing", src)
		}
		for k := range 3300 {
			text := randomText(r, alphabet, 12)
			if k >= 3000 {
				text = adversarialText(r, alphabet)
			}
			got, work := p.findAnchored(text)
			if want := re.FindSubmatchIndex(text); !slices.Equal(got, want) {
				t.Fatalf("%s in %q: anchored %v, search %v", src, text, got, want)
			}
			if work > attemptBudget*len(text)+minAttemptBudget {
				handedOver++
			}
		}
	}
	if handedOver < 100 {
		t.Fatalf("only %d searches were handed to regexp; the test proves little of that path", handedOver)
	}
}

// TestNoAnchorWithoutPrefix keeps the whole-text search for expressions whose
// matches need not begin with a literal.
func TestNoAnchorWithoutPrefix(t *testing.T) {
	for _, src := range []string{`\bab`, `^ab`, `(?m)^ab`, `\Aab`, `(?i)ab`, `a|b`, `[ab]c`, `abc`} {
		p := &Pattern{Kind: Regex, Source: src}
		p.setRegexp(regexp.MustCompile(src))
		if p.anchored != nil {
			t.Errorf("%s: anchored on prefix %q", src, p.prefix)
		}
	}
}

// TestSegmentsAgreeWithRegexp builds expressions of the shape segments take,
// and some just outside it, and checks on random texts that every one that
// compiles to segments finds exactly what regexp finds: the match and its groups.
func TestSegmentsAgreeWithRegexp(t *testing.T) {
	lits := []string{"ab", "Enter code ", ` \[`, `\]: `, "é:", "x", `\(`, "1"}
	classes := []string{`\d`, `\w`, `[a-c]`, `[^ ]`, `\S`, `.`, `(?s:.)`, `[é1]`, "b", `\s`}
	quants := []string{"", "+", "*", "?", "+?", "{2}"}
	alphabet := []string{"a", "b", "c", "1", "2", " ", "é", ":", "x", "\n", "[", "]", "(", "\xff", "Enter code ", "ab"}
	r := rand.New(rand.NewPCG(7, 8))
	scratch := slices.Repeat([]int{99}, 32)
	compiled, handedOver := 0, 0
	for range 4000 {
		var src strings.Builder
		src.WriteString(lits[r.IntN(len(lits))])
		for range 1 + r.IntN(4) {
			var part string
			if r.IntN(2) == 0 {
				part = lits[r.IntN(len(lits))]
			} else {
				part = classes[r.IntN(len(classes))] + quants[r.IntN(len(quants))]
			}
			if r.IntN(3) == 0 {
				part = "(" + part + ")"
			}
			src.WriteString(part)
		}
		if r.IntN(3) == 0 {
			src.WriteString("$")
		}
		re, err := regexp.Compile(src.String())
		if err != nil {
			continue
		}
		s := compileSegments(simplified(t, src.String()), re)
		if s == nil {
			continue
		}
		compiled++
		for k := range 220 {
			text := randomText(r, alphabet, 10)
			if k >= 200 {
				text = adversarialText(r, alphabet)
			}
			// Half the time in memory left over from earlier matches, as a
			// caller reusing it passes it.
			var buf []int
			if r.IntN(2) == 0 {
				buf = scratch
			}
			got, work := s.findWork(text, buf)
			if want := re.FindSubmatchIndex(text); !slices.Equal(got, want) {
				t.Fatalf("%s in %q: segments %v, regexp %v", src.String(), text, got, want)
			}
			if work > attemptBudget*len(text)+minAttemptBudget {
				// regexp finished the search, in memory of its own.
				handedOver++
				continue
			}
			if got != nil && buf != nil && &got[0] != &buf[:1][0] {
				t.Fatalf("%s: the match was not written to the memory given", src.String())
			}
		}
	}
	if compiled < 500 {
		t.Fatalf("only %d expressions took the shape of segments; the test proves little", compiled)
	}
	if handedOver < 100 {
		t.Fatalf("only %d searches were handed to regexp; the test proves little of that path", handedOver)
	}
}

// TestSegmentsShape: the expressions a prompt typically has take the shape of
// segments; those where a run could stop in more than one place do not.
func TestSegmentsShape(t *testing.T) {
	for src, want := range map[string]bool{
		`Enter code (?P<code>\d+) \[\d+\]: $`: true,
		`Overwrite (\w+)\? \(y/n\) `:          true,
		`Password: $`:                         true,
		`a(b|c)d`:                             true,  // a[b-c]d
		`Overwrite (\S+)\? `:                  false, // \S+ can run past the ?
		`passphrase for (.*): $`:              false, // .* can run past the colon
		`(?i)continue\? `:                     false,
		`^\$ `:                                false,
		`ab\d+\d`:                             false,
	} {
		if got := compileSegments(simplified(t, src), regexp.MustCompile(src)) != nil; got != want {
			t.Errorf("compileSegments(%q) != nil is %v, want %v", src, got, want)
		}
	}
}

// adversarialText joins up to four pieces drawn from alphabet, each repeated up
// to 300 times: texts where a literal appears at many places and a match tried
// at each may run far before it fails.
func adversarialText(r *rand.Rand, alphabet []string) []byte {
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(strings.Repeat(alphabet[r.IntN(len(alphabet))], 1+r.IntN(300)))
	}
	return []byte(b.String())
}

// randomText joins fewer than n pieces drawn from alphabet.
func randomText(r *rand.Rand, alphabet []string, n int) []byte {
	var b strings.Builder
	for range r.IntN(n) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return []byte(b.String())
}

// simplified parses the expression src as regexp does, simplified.
func simplified(t *testing.T, src string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re.Simplify()
}

// The expression anchored at a pattern's prefix is compiled the first time
// the prefix appears, not when the pattern is made: a rule whose prefix the
// program never shows costs one compilation. Its matches are those of the
// expression.
func TestAnchoredCompiledOnFirstUse(t *testing.T) {
	t.Parallel()
	p := NewRegex(regexp.MustCompile(`Decoy question 7 (?P<what>\w+)\? \[(yes|no)\]`))
	if p.anchored == nil {
		t.Fatal("no anchored expression: the test needs a pattern with a literal prefix")
	}
	if p.anchored.re != nil {
		t.Fatal("the anchored expression was compiled with the pattern")
	}
	if loc := p.FindInto([]byte("12:00 DEBUG compiling internal/pkg7/file_7.go (7ms)\n"), nil); loc != nil {
		t.Fatalf("found %v", loc)
	}
	if p.anchored.re != nil {
		t.Fatal("the anchored expression was compiled for a text without the prefix")
	}
	text := []byte("Decoy question 7 x Decoy question 7 ready? [yes]")
	want := p.Regexp.FindSubmatchIndex(text)
	if got := p.FindInto(text, nil); !slices.Equal(got, want) {
		t.Fatalf("FindInto %v, regexp %v", got, want)
	}
	if p.anchored.re == nil {
		t.Fatal("the prefix appeared, and the anchored expression is not compiled")
	}
}
