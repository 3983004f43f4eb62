package playbooks

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
)

// PatternKind says how a pattern matches.
type PatternKind int

// The pattern kinds.
const (
	// Literal patterns match their text exactly.
	Literal PatternKind = iota
	// Regex patterns are RE2 regular expressions.
	Regex
	// EOF matches the end of the program's output.
	EOF
)

// Pattern is one compiled pattern.
type Pattern struct {
	Pos
	Kind PatternKind
	// Source is the literal text or the regular expression as written.
	Source string
	// Regexp is the compiled expression of a Regex pattern, nil otherwise.
	Regexp *regexp.Regexp
	// Required is text every match contains (the literal itself for a Literal
	// pattern), or "": a text without it cannot match.
	Required      string
	requiredBytes []byte
	// searched is set when the search for the prefix, or for the segments'
	// first literal, is the search for Required too (it contains it): Required
	// is then not looked for first.
	searched bool
	// prefix is text every match of a Regex pattern begins with, and anchored
	// the expression anchored at the start of the text: Find tries it where
	// the prefix appears instead of searching the whole text.
	prefix   []byte
	anchored *regexp.Regexp
	// span bounds the bytes from its start that an anchored match can look
	// at: its longest match and the character after it.
	span int
	// segments, when the expression has their shape, finds its matches
	// without the regexp machinery (see segments).
	segments *segments
	// reach bounds where its matches can lie (see Matcher.Reach).
	reach Reach
}

// String shows the pattern as a playbook would write it.
func (p *Pattern) String() string {
	switch p.Kind {
	case Regex:
		return fmt.Sprintf("{regex: %q}", p.Source)
	case EOF:
		return "eof"
	}
	return fmt.Sprintf("%q", p.Source)
}

// Find returns the leftmost match in text: the start and end of the match, then of
// each group, as regexp's submatch indices; nil when there is none. Text without the
// pattern's required literal is rejected without running the expression.
func (p *Pattern) Find(text []byte) []int { return p.FindInto(text, nil) }

// FindInto is Find, with the indices written to buf's memory when its capacity
// holds them (the result then shares it): a caller matching over and over can
// match without allocating.
//
// The work is linear in the text, as regexp's own: the faster ways a pattern may
// be found (segments, an anchored expression tried where the prefix appears)
// hand the search to regexp before they could cost more (see atPrefix).
func (p *Pattern) FindInto(text []byte, buf []int) []int {
	switch p.Kind {
	case Regex:
		if p.Required != "" && !p.searched && !bytes.Contains(text, p.requiredBytes) {
			return nil
		}
		switch {
		case p.segments != nil:
			return p.segments.find(text, buf)
		case p.anchored != nil:
			loc, _ := p.findAnchored(text)
			return loc
		}
		return p.Regexp.FindSubmatchIndex(text)
	case Literal:
		if i := bytes.Index(text, p.requiredBytes); i >= 0 {
			return append(buf[:0], i, i+len(p.requiredBytes))
		}
	}
	return nil
}

// findAnchored finds the leftmost match of a pattern whose matches all begin
// with its prefix: at each place the prefix appears, left to right, it tries the
// expression anchored there. That is the match a search of the whole text finds,
// for less work (an anchored expression can often run in one pass).
// It says how many bytes it examined (see atPrefix).
func (p *Pattern) findAnchored(text []byte) (loc []int, work int) {
	return atPrefix(text, p.prefix, p.span, func(start int) ([]int, int) {
		// The text past span cannot change the match, and regexp's work may
		// grow with all the text it is given.
		end := start + min(p.span, len(text)-start)
		return shift(p.anchored.FindSubmatchIndex(text[start:end]), start), end - start
	}, func(start int) []int { return searchFrom(p.Regexp, text, start) })
}

// attemptBudget bounds the work of the attempts atPrefix makes: together they
// may examine attemptBudget times the text (and minAttemptBudget bytes more,
// for short texts) before the search goes on in one pass.
const (
	attemptBudget    = 1
	minAttemptBudget = 256
)

// atPrefix tries match at each place prefix appears in text, left to right, and
// returns the first match found: for an expression whose matches all begin with
// prefix, the leftmost. match reports how many bytes an attempt examined; span,
// when it is not negative, bounds that before the attempt runs.
//
// An attempt may examine all the text after its place, so trying every place
// could cost the square of the text (x.*y on a line of x). Once the attempts
// have examined attemptBudget times the text, or the next could take them past
// that, search(start) finishes from the next place in one pass of its own
// instead, so the work stays linear in the text whatever it holds. work is what
// the attempts examined, and what was left to search: the measure of that bound.
func atPrefix(text, prefix []byte, span int, match func(start int) (loc []int, examined int), search func(start int) []int) (loc []int, work int) {
	budget := attemptBudget*len(text) + minAttemptBudget
	for off := 0; off < len(text); {
		i := bytes.Index(text[off:], prefix)
		if i < 0 {
			return nil, work
		}
		start := off + i
		if work > budget || span >= 0 && work+min(span, len(text)-start) > budget {
			return search(start), work + len(text) - start
		}
		loc, examined := match(start)
		work += max(examined, 1)
		if loc != nil {
			return loc, work
		}
		off = start + 1
	}
	return nil, work
}

// searchFrom returns regexp's leftmost match in text at or after start, for an
// expression whose matches all begin with a literal and look at nothing before
// it: the match a search of the whole text finds there.
func searchFrom(re *regexp.Regexp, text []byte, start int) []int {
	return shift(re.FindSubmatchIndex(text[start:]), start)
}

// shift moves the indices of a match in text[start:] to indices in text.
func shift(loc []int, start int) []int {
	for k := range loc {
		if loc[k] >= 0 {
			loc[k] += start
		}
	}
	return loc
}

// FindEach calls yield with each match in text, left to right and not overlapping,
// until yield returns false. The indices are as Find returns them.
func (p *Pattern) FindEach(text []byte, yield func(loc []int) bool) {
	switch p.Kind {
	case Regex:
		if p.Required != "" && !bytes.Contains(text, p.requiredBytes) {
			return
		}
		for _, loc := range p.Regexp.FindAllSubmatchIndex(text, -1) {
			if !yield(loc) {
				return
			}
		}
	case Literal:
		for off := 0; off <= len(text); {
			i := bytes.Index(text[off:], p.requiredBytes)
			if i < 0 || !yield([]int{off + i, off + i + len(p.requiredBytes)}) {
				return
			}
			off += i + max(len(p.requiredBytes), 1)
		}
	}
}

// Values returns the groups of a match Find returned (groups[0] is the whole match)
// and the named groups.
func (p *Pattern) Values(text []byte, loc []int) (groups []string, named map[string]string) {
	groups = make([]string, len(loc)/2)
	for i := range groups {
		if loc[2*i] >= 0 {
			groups[i] = string(text[loc[2*i]:loc[2*i+1]])
		}
	}
	if p.Kind == Regex {
		for i, name := range p.Regexp.SubexpNames() {
			if name != "" {
				if named == nil {
					named = map[string]string{}
				}
				named[name] = groups[i]
			}
		}
	}
	return groups, named
}

// Groups returns the groups and named groups of the leftmost match in text, or ok
// false.
func (p *Pattern) Groups(text string) (groups []string, named map[string]string, ok bool) {
	b := []byte(text)
	loc := p.Find(b)
	if loc == nil {
		return nil, nil, false
	}
	groups, named = p.Values(b, loc)
	return groups, named, true
}

// Matcher is a set of patterns of which any may match.
type Matcher struct {
	Pos
	Patterns []*Pattern
}

// HasEOF reports whether the matcher waits for the end of output.
func (m *Matcher) HasEOF() bool {
	for _, p := range m.Patterns {
		if p.Kind == EOF {
			return true
		}
	}
	return false
}

// OnlyEOF reports whether the matcher waits for nothing but the end of output.
func (m *Matcher) OnlyEOF() bool {
	for _, p := range m.Patterns {
		if p.Kind != EOF {
			return false
		}
	}
	return len(m.Patterns) > 0
}

// GroupNames lists the named groups of all the matcher's patterns.
func (m *Matcher) GroupNames() []string {
	var names []string
	seen := map[string]bool{}
	for _, p := range m.Patterns {
		if p.Kind != Regex {
			continue
		}
		for _, n := range p.Regexp.SubexpNames() {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// String shows the matcher as a playbook would write it.
func (m *Matcher) String() string {
	if len(m.Patterns) == 1 {
		return m.Patterns[0].String()
	}
	parts := make([]string, len(m.Patterns))
	for i, p := range m.Patterns {
		parts[i] = p.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// matcher decodes a pattern or a list of patterns; allowEOF admits the eof keyword.
func (d *decoder) matcher(n ast.Node, what string, allowEOF bool) *Matcher {
	m := &Matcher{Pos: d.pos(n)}
	items := []ast.Node{n}
	if _, isSeq := d.resolve(n).(*ast.SequenceNode); isSeq {
		items, _ = d.seq(n, what)
		if len(items) == 0 {
			d.errorAt(n, "schema", "give at least one pattern", "%s is an empty list", what)
			return nil
		}
	}
	for _, item := range items {
		if p := d.pattern(item, what, allowEOF); p != nil {
			m.Patterns = append(m.Patterns, p)
		}
	}
	if len(m.Patterns) != len(items) {
		return nil
	}
	return m
}

// pattern decodes one pattern: "text", eof, {regex: …} or {literal: …}.
func (d *decoder) pattern(n ast.Node, what string, allowEOF bool) *Pattern {
	p := &Pattern{Pos: d.pos(d.resolve(n))}
	switch v := d.resolve(n).(type) {
	case *ast.StringNode, *ast.LiteralNode:
		text, _ := d.str(v, what)
		if text == "eof" {
			if !allowEOF {
				d.errorAt(v, "schema", `a rule reacts to text; to match the word write {literal: "eof"}`, "%s cannot be eof", what)
				return nil
			}
			p.Kind = EOF
			return p
		}
		p.Kind, p.Source = Literal, text
		if allowEOF && strings.EqualFold(text, "eof") {
			d.report(d.pos(v), diag.Warning, "keyword", `write eof in lower case for the end of output, or {literal: "`+text+`"} for the text`, "%s is the text %q, not the end of output", what, text)
		}
	case *ast.MappingNode, *ast.MappingValueNode:
		present, ok := d.fields(v, what, []string{"regex", "literal"}, func(key string, value ast.Node) {
			p.Source, _ = d.str(value, sub(what, key))
			if key == "regex" {
				p.Kind = Regex
			}
		})
		if !ok || len(present) == 0 {
			if ok {
				d.errorAt(v, "schema", `write {regex: '…'} or {literal: "…"}`, "%s is an empty mapping", what)
			}
			return nil
		}
		if len(present) > 1 {
			d.errorAt(v, "schema", "keep one of them", "%s has both regex and literal", what)
			return nil
		}
	case *ast.SequenceNode:
		d.errorAt(v, "schema", "flatten the list: a list of patterns already means any of them", "%s cannot nest a list in a list", what)
		return nil
	default:
		d.typeError(v, what, `a pattern ("text", {regex: '…'} or eof)`)
		return nil
	}
	if p.Source == "" {
		d.errorAt(n, "schema", "write the text to wait for", "%s is empty, which would match anything", what)
		return nil
	}
	if p.Kind == Regex {
		re, err := regexp.Compile(p.Source)
		if err != nil {
			d.regexError(d.resolve(n), what, p.Source, err)
			return nil
		}
		if re.MatchString("") {
			d.errorAt(n, "regex", "make at least one part of it required, e.g. + instead of *", "%s matches the empty text, so it would match anything", what)
			return nil
		}
		p.setRegexp(re)
	} else if p.Kind == Literal {
		p.Required = p.Source
		p.reach = literalReach(p.Source)
	}
	p.requiredBytes = []byte(p.Required)
	return p
}

// setRegexp makes p a Regex pattern for re, compiled from p.Source.
func (p *Pattern) setRegexp(re *regexp.Regexp) {
	p.Regexp = re
	p.reach = Reach{MaxLen: -1, LooksBack: true}
	// What the matchers learn of the expression comes from one parse of it,
	// which cannot fail where regexp compiled it.
	tree, err := syntax.Parse(p.Source, syntax.Perl)
	if err != nil {
		return
	}
	tree = tree.Simplify()
	p.reach = regexpReach(tree)
	p.span = math.MaxInt
	if p.reach.MaxLen >= 0 {
		p.span = p.reach.MaxLen + utf8.UTFMax
	}
	p.Required = requiredLiteral(tree)
	if prefix := literalPrefix(tree); prefix != "" {
		// Anchoring keeps the groups and their numbers.
		if a, err := regexp.Compile(`\A(?:` + p.Source + `)`); err == nil {
			p.prefix, p.anchored = []byte(prefix), a
		}
	}
	p.segments = compileSegments(tree, re)
	switch {
	case p.segments != nil:
		p.searched = strings.Contains(string(p.segments.segs[0].lit), p.Required)
	case p.anchored != nil:
		p.searched = strings.Contains(string(p.prefix), p.Required)
	}
}

// literalPrefix returns the text every match of the (simplified) expression re
// begins with, when its matches can begin anywhere; "" when there is none, and for an
// expression that is all literal or anchored (^, \b…: a match found where the
// prefix appears would not look at what comes before it). Unlike
// regexp.LiteralPrefix, it does not look past a leading ^.
func literalPrefix(re *syntax.Regexp) string {
	prog, err := syntax.Compile(re)
	if err != nil {
		return ""
	}
	prefix, complete := prog.Prefix()
	if complete {
		return ""
	}
	return prefix
}

// regexError reports a regex that does not compile, explaining PCRE-only syntax.
func (d *decoder) regexError(n ast.Node, what, src string, err error) {
	if construct, hint := pcreOnly(src); construct != "" {
		d.errorAt(n, "pcre", hint, "%s uses %s, which Go's RE2 does not support", what, construct)
		return
	}
	msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	d.errorAt(n, "regex", "fix the expression; test it with RE2 syntax (https://github.com/google/re2/wiki/Syntax)", "%s does not compile: %s", what, msg)
}

// pcreOnly finds the first construct in src that PCRE supports and RE2 does not, and
// says how to write it in RE2.
func pcreOnly(src string) (construct, hint string) {
	const whenHint = "match the text itself and put the condition in when:, e.g. when: 'not (match.text contains \"--force\")'"
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		rest := src[i:]
		switch {
		case c == '\\' && i+1 < len(src):
			e := src[i+1]
			i++
			switch {
			case e == 'Q':
				if end := strings.Index(src[i:], `\E`); end >= 0 {
					i += end + 1
				} else {
					i = len(src)
				}
			case inClass:
			case e >= '1' && e <= '9':
				return "the backreference \\" + string(e), "RE2 has no backreferences: capture both parts and compare them in when:, e.g. when: 'match.groups[1] == match.groups[2]'"
			case e == 'k' || e == 'g':
				return "the backreference \\" + string(e), "RE2 has no backreferences: capture both parts and compare them in when:, e.g. when: 'match.groups[1] == match.groups[2]'"
			case e == 'Z':
				return `\Z`, `write \z for the end of the text, or \n?\z to allow one final newline as PCRE's \Z does`
			case e == 'G':
				return `\G`, `RE2 has no \G; anchor with ^ or \A`
			case e == 'h':
				return `\h`, `write [ \t] for horizontal white space`
			case e == 'R':
				return `\R`, `write (?:\r\n|\n|\r) for a line break`
			case e == 'K':
				return `\K`, "put the part you want in a named group and use match.NAME"
			}
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if strings.HasPrefix(rest, "[]") || strings.HasPrefix(rest, "[^]") {
				i += strings.Index(rest, "]")
			}
		case strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!"):
			return "the lookahead " + rest[:3] + "…)", "RE2 has no lookaround: " + whenHint
		case strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!"):
			return "the lookbehind " + rest[:4] + "…)", "RE2 has no lookaround: " + whenHint
		case strings.HasPrefix(rest, "(?>"):
			return "the atomic group (?>…)", "RE2 never backtracks, so a plain group (?:…) does the same"
		case strings.HasPrefix(rest, "(?#"):
			return "the comment group (?#…)", "move the comment into a YAML comment"
		case strings.HasPrefix(rest, "(?'"):
			return "the quoted group name (?'name'…)", "write (?P<name>…)"
		case strings.HasPrefix(rest, "(?|"), strings.HasPrefix(rest, "(?("), strings.HasPrefix(rest, "(?R"),
			len(rest) > 2 && strings.HasPrefix(rest, "(?") && rest[2] >= '0' && rest[2] <= '9':
			return "a conditional, recursion or branch-reset group", "RE2 does not support it: split the pattern into several patterns (a list means any of them)"
		case (c == '*' || c == '+' || c == '?' || c == '}') && i+1 < len(src) && src[i+1] == '+' && i > 0 && src[i-1] != '\\' && !(c == '?' && src[i-1] == '('):
			return "the possessive quantifier " + src[i:i+2], "RE2 never backtracks, so the plain quantifier does the same: drop the second +"
		}
	}
	return "", ""
}
