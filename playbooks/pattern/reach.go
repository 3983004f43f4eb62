package pattern

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Reach bounds where a match can lie, for a scanner of text that grows at its
// end: a match it has not found yet must hold, or end next to, the newest text,
// and the bounds say how far before that it can begin.
type Reach struct {
	// MaxLen is the most bytes a match can span, or -1 when there is no bound.
	MaxLen int
	// OneLine is set when no match holds a newline.
	OneLine bool
	// LooksBack is set when a match may test the text before it (a leading
	// ^, \A, \b or \B): a search that begins at its start would not see it.
	LooksBack bool
}

// maxReach is the longest bound MaxLen keeps; a longer one counts as none.
const maxReach = 1 << 20

// Reach bounds where the matches of any of the matcher's text patterns can lie.
func (m *Matcher) Reach() Reach {
	r := Reach{OneLine: true}
	for _, p := range m.Patterns {
		if p.Kind == EOF {
			continue
		}
		if p.reach.MaxLen < 0 || r.MaxLen < 0 {
			r.MaxLen = -1
		} else {
			r.MaxLen = max(r.MaxLen, p.reach.MaxLen)
		}
		r.OneLine = r.OneLine && p.reach.OneLine
		r.LooksBack = r.LooksBack || p.reach.LooksBack
	}
	return r
}

// literalReach is the reach of a literal pattern.
func literalReach(lit string) Reach {
	return Reach{MaxLen: len(lit), OneLine: !strings.Contains(lit, "\n")}
}

// regexpReach is the reach of the (simplified) expression re, compiled to
// prog.
func regexpReach(re *syntax.Regexp, prog *syntax.Prog) Reach {
	return Reach{MaxLen: maxBytes(re), OneLine: !mayHoldNewline(re), LooksBack: looksBack(prog)}
}

// maxBytes returns the most bytes a match of re can span, or -1 when there is
// no bound (or it is over maxReach).
func maxBytes(re *syntax.Regexp) int {
	n := 0
	switch re.Op {
	case syntax.OpLiteral:
		n = len(string(re.Rune))
		if re.Flags&syntax.FoldCase != 0 {
			// Another case of a character may be longer (k and the Kelvin sign).
			n = utf8.UTFMax * len(re.Rune)
		}
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		n = utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		n = maxBytes(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxBytes(re.Sub[0]) != 0 {
			return -1
		}
	case syntax.OpRepeat:
		sub := maxBytes(re.Sub[0])
		if sub != 0 && (re.Max < 0 || sub < 0) {
			return -1
		}
		n = max(re.Max, 0) * sub
	case syntax.OpConcat:
		for _, s := range re.Sub {
			m := maxBytes(s)
			if m < 0 {
				return -1
			}
			n += m
		}
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			m := maxBytes(s)
			if m < 0 {
				return -1
			}
			n = max(n, m)
		}
	}
	if n > maxReach {
		return -1
	}
	return n
}

// mayHoldNewline reports whether a match of re may hold a newline.
func mayHoldNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.ContainsRune(string(re.Rune), '\n')
	case syntax.OpCharClass:
		return inClass(re.Rune, '\n')
	case syntax.OpAnyChar:
		return true
	}
	for _, s := range re.Sub {
		if mayHoldNewline(s) {
			return true
		}
	}
	return false
}

// looksBack reports whether a match of the expression compiled to prog may
// test an assertion before its first character, which looks at the text
// before the match.
func looksBack(prog *syntax.Prog) bool {
	seen := make([]bool, len(prog.Inst))
	var walk func(pc uint32) bool
	walk = func(pc uint32) bool {
		if seen[pc] {
			return false
		}
		seen[pc] = true
		switch i := &prog.Inst[pc]; i.Op {
		case syntax.InstEmptyWidth:
			return true
		case syntax.InstAlt, syntax.InstAltMatch:
			return walk(i.Out) || walk(i.Arg)
		case syntax.InstCapture, syntax.InstNop:
			return walk(i.Out)
		}
		return false
	}
	return walk(uint32(prog.Start))
}
