package pattern

import (
	"regexp/syntax"
)

// requiredLiteral returns the longest literal text that every match of the regular
// expression contains, or "" when there is none worth checking. FindInto looks for
// it with a fast substring search before it runs the expression, so that many
// patterns do not multiply the cost of matching. re is simplified.
func requiredLiteral(re *syntax.Regexp) string {
	best := ""
	for _, lit := range literals(re) {
		if len(lit) > len(best) {
			best = lit
		}
	}
	if len(best) < 2 {
		return ""
	}
	return best
}

// literals lists literal runs that must appear in every match of re.
func literals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpPlus:
		return literals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Adjacent literals join into one run; anything else breaks the run.
		var out []string
		run := ""
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
				run += string(sub.Rune)
				continue
			}
			if run != "" {
				out = append(out, run)
				run = ""
			}
			out = append(out, literals(sub)...)
		}
		if run != "" {
			out = append(out, run)
		}
		return out
	}
	return nil
}
