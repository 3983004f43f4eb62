// Package pattern matches the patterns of a playbook in text: literals, RE2
// regular expressions and the end of output. It finds a pattern's matches
// faster than a plain regexp search where it can (a required literal looked for
// first, an expression anchored where its literal prefix appears, a one-pass
// matcher for the shapes prompts often have), always with the match regexp
// finds and in time linear in the text, and it bounds where a pattern's matches
// can lie (Reach) for a scanner of growing text.
package pattern

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// Kind says how a pattern matches.
type Kind int

// The pattern kinds.
const (
	// Literal patterns match their text exactly.
	Literal Kind = iota
	// Regex patterns are RE2 regular expressions.
	Regex
	// EOF matches the end of the program's output.
	EOF
)

// Pattern is one compiled pattern, made by NewLiteral, NewRegex or NewEOF.
type Pattern struct {
	// Kind says how the pattern matches.
	Kind Kind
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
	// the expression anchored at the start of the text: FindInto tries it where
	// the prefix appears instead of searching the whole text.
	prefix   []byte
	anchored *anchoredRegexp
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

// FindInto returns the leftmost match in text: the start and end of the match,
// then of each group, as regexp's submatch indices; nil when there is none. Text
// without the pattern's required literal is rejected without running the
// expression. The indices are written to buf's memory when its capacity holds
// them (the result then shares it): a caller matching over and over can match
// without allocating.
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
		a := p.anchored.get()
		if a == nil {
			// Never: the expression compiled, and anchored it does too.
			return searchFrom(p.Regexp, text, start), len(text) - start
		}
		end := start + min(p.span, len(text)-start)
		return shift(a.FindSubmatchIndex(text[start:end]), start), end - start
	}, func(start int) []int { return searchFrom(p.Regexp, text, start) })
}

// anchoredRegexp is a pattern's expression anchored at the start of the text,
// compiled the first time its prefix appears: a playbook of many rules whose
// prefixes the program never shows (decoys, rules for other versions of it)
// pays for one compilation a rule, not two.
type anchoredRegexp struct {
	source string
	once   sync.Once
	re     *regexp.Regexp
}

// get returns the anchored expression, or nil if it did not compile.
func (a *anchoredRegexp) get() *regexp.Regexp {
	a.once.Do(func() {
		// Anchoring keeps the groups and their numbers.
		a.re, _ = regexp.Compile(`\A(?:` + a.source + `)`)
	})
	return a.re
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
// until yield returns false. The indices are as FindInto returns them.
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

// Values returns the groups of a match FindInto returned (groups[0] is the whole match)
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
	loc := p.FindInto(b, nil)
	if loc == nil {
		return nil, nil, false
	}
	groups, named = p.Values(b, loc)
	return groups, named, true
}

// Matcher is a set of patterns of which any may match.
type Matcher struct {
	// Patterns are the matcher's patterns, in the order they were written.
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

// NewLiteral returns the pattern that matches text exactly.
func NewLiteral(text string) *Pattern {
	return &Pattern{Kind: Literal, Source: text, Required: text, requiredBytes: []byte(text), reach: literalReach(text)}
}

// NewRegex returns the pattern of the compiled expression re, written as
// re.String().
func NewRegex(re *regexp.Regexp) *Pattern {
	p := &Pattern{Kind: Regex, Source: re.String()}
	p.setRegexp(re)
	p.requiredBytes = []byte(p.Required)
	return p
}

// NewEOF returns the pattern that matches the end of the program's output.
func NewEOF() *Pattern { return &Pattern{Kind: EOF} }

// setRegexp makes p a Regex pattern for re, compiled from p.Source: all but the
// bytes of its required literal, which NewRegex adds.
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
	// One program serves the reach and the prefix: compiling it is most of
	// what a pattern costs to load.
	prog, err := syntax.Compile(tree)
	if err != nil {
		return
	}
	p.reach = regexpReach(tree, prog)
	p.span = math.MaxInt
	if p.reach.MaxLen >= 0 {
		p.span = p.reach.MaxLen + utf8.UTFMax
	}
	p.Required = requiredLiteral(tree)
	if prefix := literalPrefix(prog); prefix != "" {
		p.prefix, p.anchored = []byte(prefix), &anchoredRegexp{source: p.Source}
	}
	p.segments = compileSegments(tree, re)
	switch {
	case p.segments != nil:
		p.searched = strings.Contains(string(p.segments.segs[0].lit), p.Required)
	case p.anchored != nil:
		p.searched = strings.Contains(string(p.prefix), p.Required)
	}
}

// literalPrefix returns the text every match of the (simplified) expression
// compiled to prog begins with, when its matches can begin anywhere; "" when
// there is none, and for an expression that is all literal or anchored (^, \b…: a match found where the
// prefix appears would not look at what comes before it). Unlike
// regexp.LiteralPrefix, it does not look past a leading ^.
func literalPrefix(prog *syntax.Prog) string {
	prefix, complete := prog.Prefix()
	if complete {
		return ""
	}
	return prefix
}
