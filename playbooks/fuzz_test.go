package playbooks

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/clai-sh/clai/playbooks/diag"
)

// FuzzParse feeds any bytes to Parse, the entry lint uses: the answer is a
// playbook without errors, or no playbook and at least one error, and every
// finding is placed in the file (a line of it, a column from 1) and says what
// is wrong. Parse's own bounds keep each input's time small; the seeds are the
// bundled examples and the lint fixtures.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"../examples/*.yaml", "../testdata/lint/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	for _, s := range []string{
		"", "version: 1\n", "version: 1\nname: x\nspawn: [sh]\n", "{", "- [\n", "a: &a [*a]\n",
		"version: 1\nname: x\nextends: claude-code\nspawn: [claude]\n",
		"version: 1\nname: x\nspawn: sh\nsteps:\n  - expect: {regex: '(a'}\n",
		"version: 1\nname: x\nspawn: sh\nsteps:\n  - expect: eof\n    timeout: 1h\n",
		"version: 1\nname: x\nspawn: sh\nrules:\n  - when: 'match.text contains'\n",
		"\t\x00\xff---\n...\n%YAML 1.2\n",
	} {
		f.Add([]byte(s))
	}
	const name = "fuzz.yaml"
	f.Fuzz(func(t *testing.T, src []byte) {
		pb, findings := Parse(name, src)
		if pb == nil && !findings.HasErrors() {
			t.Fatalf("no playbook and no error: %v", findings)
		}
		if pb != nil && findings.HasErrors() {
			t.Fatalf("a playbook and errors: %v", findings)
		}
		lines := yamlLines(src)
		for _, d := range findings {
			checkFinding(t, d, name, lines)
		}
		if _, again := Parse(name, src); !slices.Equal(again, findings) {
			t.Fatalf("parsed twice, the findings differ:\n%v\n%v", findings, again)
		}
	})
}

// yamlLines counts the lines of src as YAML does: "\r\n", "\r" and "\n" each
// end one.
func yamlLines(src []byte) int {
	n := 1
	for i, c := range src {
		if c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			n++
		}
	}
	return n
}

// checkFinding fails t unless d is placed in the file named name, of lines
// lines, and says what is wrong, and what to do when it is an error.
func checkFinding(t *testing.T, d diag.Diagnostic, name string, lines int) {
	t.Helper()
	switch {
	case d.File != name:
		t.Fatalf("%v: placed in %q, not in %q", d, d.File, name)
	case d.Line < 1 || d.Line > lines || d.Col < 1:
		t.Fatalf("%v: placed outside the file's %d lines", d, lines)
	case d.Message == "" || d.Rule == "":
		t.Fatalf("%v: no message or no rule", d)
	case d.Severity == diag.Error && d.Hint == "":
		t.Fatalf("%v: an error without a hint", d)
	}
}

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
		p := &Pattern{Kind: Regex, Source: expr}
		p.setRegexp(re)
		p.requiredBytes = []byte(p.Required)
		want := re.FindSubmatchIndex(text)
		if got := p.Find(text); !slices.Equal(got, want) {
			t.Fatalf("%s in %q: Find %v, regexp %v", expr, text, got, want)
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
	p := &Pattern{Kind: Literal, Source: src, Required: src, requiredBytes: []byte(src)}
	want := regexp.MustCompile(regexp.QuoteMeta(src)).FindIndex(text)
	if got := p.Find(text); !slices.Equal(got, want) {
		t.Fatalf("literal %q in %q: %v, regexp %v", src, text, got, want)
	}
}
