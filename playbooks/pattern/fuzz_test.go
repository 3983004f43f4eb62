package pattern

import (
	"bytes"
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzPatternMatchesRegexp checks the fast ways a regex pattern is found (its
// segments, its anchored expression tried where its prefix appears, the
// required literal checked first) against Go's regexp on any expression the
// decoder accepts and any text: the same match and groups, in memory left over
// from an earlier match too. It checks the bounds the runner relies on as well:
// every match holds the required literal and begins with the prefix, is no
// longer than the pattern's reach and stays on one line when the reach says so,
// and a pattern that does not look back matches the same from its match's start.
// A literal pattern (valid UTF-8, as YAML text is) finds what its quoted
// expression finds.
func FuzzPatternMatchesRegexp(f *testing.F) {
	for _, c := range []struct{ expr, text string }{
		{`Enter code (?P<code>\d+) \[\d+\]: $`, "Enter code 12 [3]: "},
		{`Overwrite (\w+)\? \(y/n\) `, "Overwrite file? (y/n) "},
		{`Password: $`, "Password: "},
		{`a(b|c)d`, "xxacdabd"},
		{`ab+c`, "ababbbc"},
		{`ab*?`, "aab"},
		{`ab(c|cd)(d?)`, "abcd"},
		{`a\B.`, "ab a"},
		{`(?m)ab$`, "ab\nab"},
		{`aé(\w*)`, "aéé_1"},
		{`(?s)a.b`, "a\nb"},
		{`a[^\n]*c\b`, "abc cd"},
		{`aé?.$`, "a\xff"},
		{`a(?i:k)?\B`, "a\u212a"},
		{`git\s+push\b[^\n]*\s(--force|-f)\b`, "git push origin -f"},
		{`1\d+ files`, "111 11 files"},
		{`x.*y`, "xxxxxxxxy"},
		{`(^|\s)sudo\s`, " sudo rm"},
		{`(?i)upgrade your plan|buy credits`, "Buy Credits"},
		{`rm -rf /`, "rm  -rf /; rm -rf /"},
		{`ab[\d\s]{2}\z`, "ab1 ab 2"},
	} {
		f.Add(c.expr, []byte(c.text))
	}
	scratch := slices.Repeat([]int{-7}, 64)
	f.Fuzz(func(t *testing.T, expr string, text []byte) {
		if expr != "" && utf8.ValidString(expr) {
			checkLiteral(t, expr, text)
		}
		re, err := regexp.Compile(expr)
		if err != nil || re.MatchString("") {
			return // the decoder refuses these
		}
		p := NewRegex(re)
		want := re.FindSubmatchIndex(text)
		if got := p.FindInto(text, nil); !slices.Equal(got, want) {
			t.Fatalf("%s in %q: FindInto %v, regexp %v", expr, text, got, want)
		}
		if got := p.FindInto(text, slices.Clone(scratch)); !slices.Equal(got, want) {
			t.Fatalf("%s in %q: FindInto used memory %v, regexp %v", expr, text, got, want)
		}
		if p.segments != nil {
			if got := p.segments.find(text, slices.Clone(scratch)); !slices.Equal(got, want) {
				t.Fatalf("%s in %q: segments %v, regexp %v", expr, text, got, want)
			}
		}
		if p.anchored != nil {
			if got, _ := p.findAnchored(text); !slices.Equal(got, want) {
				t.Fatalf("%s in %q: anchored at the prefix %v, regexp %v", expr, text, got, want)
			}
		}
		if want != nil {
			checkMatchBounds(t, p, text, want)
		}
	})
}

// checkMatchBounds fails t when the match loc of p in text breaks what p
// promises of its matches.
func checkMatchBounds(t *testing.T, p *Pattern, text []byte, loc []int) {
	t.Helper()
	m := text[loc[0]:loc[1]]
	switch {
	case !bytes.Contains(m, p.requiredBytes):
		t.Fatalf("%s matched %q without its required %q", p.Source, m, p.Required)
	case !bytes.HasPrefix(text[loc[0]:], p.prefix):
		t.Fatalf("%s matched %q, which does not begin with its prefix %q", p.Source, m, p.prefix)
	case p.reach.MaxLen >= 0 && len(m) > p.reach.MaxLen:
		t.Fatalf("%s matched %q, longer than its reach %d", p.Source, m, p.reach.MaxLen)
	case p.reach.OneLine && bytes.Contains(m, []byte("\n")):
		t.Fatalf("%s matched %q over a newline, its reach says one line", p.Source, m)
	}
	if p.reach.LooksBack {
		return
	}
	if from := shift(p.Regexp.FindSubmatchIndex(text[loc[0]:]), loc[0]); !slices.Equal(from, loc) {
		t.Fatalf("%s in %q: %v, but %v searched from the match's start, and its reach says it does not look back", p.Source, text, loc, from)
	}
}

// checkLiteral checks a literal pattern of src against its quoted expression.
func checkLiteral(t *testing.T, src string, text []byte) {
	t.Helper()
	p := NewLiteral(src)
	want := regexp.MustCompile(regexp.QuoteMeta(src)).FindIndex(text)
	if got := p.FindInto(text, nil); !slices.Equal(got, want) {
		t.Fatalf("literal %q in %q: %v, regexp %v", src, text, got, want)
	}
}
