package playbooks

import (
	"math/rand/v2"
	"regexp"
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
	}
	alphabet := []string{"a", "b", "c", "d", "é", "\n", " ", "\xff", "1", "Enter code 12 [3]: "}
	r := rand.New(rand.NewPCG(3, 4))
	for _, src := range exprs {
		re := regexp.MustCompile(src)
		p := &Pattern{Kind: Regex, Source: src}
		p.setRegexp(re)
		if p.anchored == nil {
			t.Fatalf("%s: not anchored; the test proves nothing", src)
		}
		for range 3000 {
			var b strings.Builder
			for range r.IntN(12) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			text := []byte(b.String())
			if got, want := p.findAnchored(text), re.FindSubmatchIndex(text); !slices.Equal(got, want) {
				t.Fatalf("%s in %q: anchored %v, search %v", src, text, got, want)
			}
		}
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
