package pattern

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestReach: the bounds of typical expressions.
func TestReach(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]Reach{
		`rm -rf /`:                           {MaxLen: 8, OneLine: true},
		`(?i)upgrade your plan|buy credits`:  {MaxLen: 4 * len("upgrade your plan"), OneLine: true},
		`git\s+push\b[^\n]*\s(--force|-f)\b`: {MaxLen: -1},
		`x[^\n]*y`:                           {MaxLen: -1, OneLine: true},
		`(?s)x.y`:                            {MaxLen: 6},
		`x.{2}y\b`:                           {MaxLen: 10, OneLine: true},
		`a\nb`:                               {MaxLen: 3},
		`(^|\s)sudo\s`:                       {MaxLen: 12, LooksBack: true},
		`(?i)\bdrop\s+table`:                 {MaxLen: -1, LooksBack: true},
		`(?m)^\$ `:                           {MaxLen: 2, OneLine: true, LooksBack: true},
		`ab\b*c`:                             {MaxLen: 3, OneLine: true},
	} {
		p := &Pattern{Kind: Regex, Source: src}
		p.setRegexp(regexp.MustCompile(src))
		if got := (&Matcher{Patterns: []*Pattern{p}}).Reach(); got != want {
			t.Errorf("%s: reach %+v, want %+v", src, got, want)
		}
	}
}

// TestReachHoldsForMatches checks the bounds against the matches regexp finds
// in random texts: no match is longer than MaxLen, or holds a newline when
// OneLine is set.
func TestReachHoldsForMatches(t *testing.T) {
	t.Parallel()
	exprs := []string{`ab?c`, `a.c`, `(?s)a.c`, `a\s\w{1,3}`, `(?i)ks`, `a[^b]c|dd`, `a(b|\n)c`, `é.é`, `a\pLb`}
	alphabet := []string{"a", "b", "c", "d", "k", "s", "K", "ſ", "\u212a", "é", "\n", " ", "\xff"}
	r := rand.New(rand.NewPCG(5, 6))
	for _, src := range exprs {
		p := &Pattern{Kind: Regex, Source: src}
		p.setRegexp(regexp.MustCompile(src))
		reach := p.reach
		for range 2000 {
			text := randomText(r, alphabet, 16)
			for _, loc := range p.Regexp.FindAllIndex(text, -1) {
				m := string(text[loc[0]:loc[1]])
				if reach.MaxLen >= 0 && len(m) > reach.MaxLen {
					t.Fatalf("%s matched %q, longer than %d", src, m, reach.MaxLen)
				}
				if reach.OneLine && strings.Contains(m, "\n") {
					t.Fatalf("%s matched %q over a newline", src, m)
				}
			}
		}
	}
}
