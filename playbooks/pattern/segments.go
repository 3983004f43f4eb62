package pattern

import (
	"bytes"
	"math"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// segments is a regular expression of a shape prompts often have, matched
// without the regexp machinery: a literal, then literals and runs of one
// character class (a group may hold either), and perhaps the end of the text.
// Each run is followed by the end of the expression, the end of the text, or a
// literal whose first character the run's class does not hold. So wherever a
// match starts (at the first literal), there is at most one way to match: the
// greedy one, found in one pass. That is the match regexp's leftmost-first
// search finds, for a fraction of its work (most of which, between two
// prompts, is fetching the regexp's tables back into the CPU's caches).
type segments struct {
	segs []segment
	// groups is the number of capturing groups of the expression.
	groups int
	// re is the expression compiled by regexp, which finishes a search whose
	// attempts used up their budget (see atPrefix).
	re *regexp.Regexp
}

// segment is one step of a segments match.
type segment struct {
	// lit is the literal to find, when it is not a run.
	lit []byte
	// class holds a run's characters as ranges, syntax.Regexp.Rune's pairs;
	// min and max bound its length in characters (math.MaxInt: no bound).
	class []rune
	// ascii holds the class's ASCII characters as a bit set, for a run over
	// ASCII text without decoding it.
	ascii    [2]uint64
	min, max int
	// end is set for the end of the text.
	end bool
	// group is the capturing group the segment is, or 0.
	group int
}

// compileSegments returns the segments of the (simplified) expression tree,
// compiled as re, or nil when it is not of their shape.
func compileSegments(tree *syntax.Regexp, re *regexp.Regexp) *segments {
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	s := &segments{groups: tree.MaxCap(), re: re}
	for _, sub := range subs {
		seg, ok := toSegment(sub)
		if !ok {
			return nil
		}
		s.segs = append(s.segs, seg)
	}
	if len(s.segs) == 0 || s.segs[0].lit == nil {
		return nil
	}
	for i, seg := range s.segs {
		if seg.class == nil {
			continue
		}
		// A run must be followed by nothing, the end of the text, or a literal
		// it cannot run into.
		if i+1 < len(s.segs) {
			next := s.segs[i+1]
			if next.end {
				continue
			}
			if next.lit == nil {
				return nil
			}
			first, _ := utf8.DecodeRune(next.lit)
			if inClass(seg.class, first) {
				return nil
			}
		}
	}
	return s
}

// toSegment turns one element of a concatenation into a segment.
func toSegment(re *syntax.Regexp) (segment, bool) {
	group := 0
	if re.Op == syntax.OpCapture {
		group, re = re.Cap, re.Sub[0]
	}
	seg := segment{group: group}
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return seg, false
		}
		seg.lit = []byte(string(re.Rune))
		return seg, len(seg.lit) > 0
	case syntax.OpEndText:
		seg.end = true
		return seg, group == 0
	case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		seg.min, seg.max = 1, 1
	case syntax.OpPlus, syntax.OpStar, syntax.OpQuest:
		if re.Flags&syntax.NonGreedy != 0 {
			return seg, false
		}
		switch re.Op {
		case syntax.OpPlus:
			seg.min, seg.max = 1, math.MaxInt
		case syntax.OpStar:
			seg.min, seg.max = 0, math.MaxInt
		default:
			seg.min, seg.max = 0, 1
		}
		re = re.Sub[0]
	default:
		return seg, false
	}
	switch re.Op {
	case syntax.OpCharClass:
		seg.class = re.Rune
	case syntax.OpAnyCharNotNL:
		seg.class = []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	case syntax.OpAnyChar:
		seg.class = []rune{0, utf8.MaxRune}
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 {
			return seg, false
		}
		seg.class = []rune{re.Rune[0], re.Rune[0]}
	default:
		return seg, false
	}
	for c := rune(0); c < utf8.RuneSelf; c++ {
		if inClass(seg.class, c) {
			seg.ascii[c>>6] |= 1 << (c & 63)
		}
	}
	return seg, len(seg.class) > 0
}

// inClass reports whether r is in the ranges of class.
func inClass(class []rune, r rune) bool {
	for i := 0; i+1 < len(class); i += 2 {
		if r < class[i] {
			return false
		}
		if r <= class[i+1] {
			return true
		}
	}
	return false
}

// find returns the leftmost match in text, as regexp's FindSubmatchIndex would.
func (s *segments) find(text []byte, buf []int) []int {
	loc, _ := s.findWork(text, buf)
	return loc
}

// findWork is find, and says how many bytes it examined (see atPrefix).
func (s *segments) findWork(text []byte, buf []int) ([]int, int) {
	return atPrefix(text, s.segs[0].lit, -1,
		func(start int) ([]int, int) { return s.matchAt(text, start, buf) },
		func(start int) []int { return searchFrom(s.re, text, start) })
}

// matchAt matches the segments at start, or returns nil, and says how many bytes
// it examined. The indices go to buf's memory when it has room for them.
func (s *segments) matchAt(text []byte, start int, buf []int) (loc []int, examined int) {
	loc = buf[:0]
	if n := 2 + 2*s.groups; cap(loc) >= n {
		loc = loc[:n]
	} else {
		loc = make([]int, n)
	}
	for i := range loc {
		loc[i] = -1
	}
	pos := start
	for i := range s.segs {
		seg := &s.segs[i]
		from := pos
		switch {
		case seg.end:
			if pos != len(text) {
				return nil, pos - start
			}
		case seg.lit != nil:
			if !bytes.HasPrefix(text[pos:], seg.lit) {
				return nil, pos - start + len(seg.lit)
			}
			pos += len(seg.lit)
		default:
			n := 0
			for pos < len(text) && n < seg.max {
				if c := text[pos]; c < utf8.RuneSelf {
					if seg.ascii[c>>6&1]&(1<<(c&63)) == 0 {
						break
					}
					pos++
					n++
					continue
				}
				r, size := utf8.DecodeRune(text[pos:])
				if !inClass(seg.class, r) {
					break
				}
				pos += size
				n++
			}
			if n < seg.min {
				return nil, pos - start + 1
			}
		}
		if seg.group > 0 {
			loc[2*seg.group], loc[2*seg.group+1] = from, pos
		}
	}
	loc[0], loc[1] = start, pos
	return loc, pos - start
}
