package safecmd

import (
	"fmt"
	"strings"
)

// findOperators are the words of find's expression that are neither primaries
// nor values.
var findOperators = map[string]bool{"(": true, ")": true, "!": true, ",": true}

// parseFind reads ws as find does: -H, -L or -P, the starting points, then
// the expression. Every primary must be on the allow-list; a primary's value
// is the word after it.
func (j *judge) parseFind(p *compiled, ws []word) (*call, string) {
	c := &call{prog: p, afterDashDash: -1}
	i := 0
	for ; i < len(ws) && (ws[i].value == "-H" || ws[i].value == "-L" || ws[i].value == "-P"); i++ {
		c.flags = append(c.flags, given{name: ws[i].value})
	}
	for ; i < len(ws); i++ {
		w := ws[i]
		if strings.HasPrefix(w.value, "-") || findOperators[w.value] {
			break
		}
		if why := j.positional(p, w, false); why != "" {
			return nil, why
		}
		c.pos = append(c.pos, w)
	}
	for ; i < len(ws); i++ {
		v := ws[i].value
		if findOperators[v] {
			continue
		}
		if ws[i].glob {
			return nil, fmt.Sprintf("find: the unquoted glob %q in the expression", v)
		}
		f, why := p.lookup(v)
		if why != "" {
			return nil, why
		}
		if f.name == "-H" || f.name == "-L" || f.name == "-P" {
			return nil, fmt.Sprintf("find: %s after the starting points", v)
		}
		val := ""
		if f.arity == required {
			i++
			if why := j.nextValue(p, f, ws, i); why != "" {
				return nil, why
			}
			val = ws[i].value
		}
		c.flags = append(c.flags, given{f.name, val})
	}
	return c, ""
}
