package safecmd

import (
	"fmt"
	"strings"
)

// judge judges the commands of one line.
type judge struct {
	*tableSet
	// project is the cleaned project folder, "" when absolute paths are
	// never inside it.
	project string
	// code allows the programs that run the project's code.
	code bool
}

// A call is a command as its program reads it.
type call struct {
	prog  *compiled
	flags []given
	// pos are the arguments that are not flags; those from afterDashDash on
	// came after --.
	pos           []word
	afterDashDash int
}

// given is a flag as given, with its value.
type given struct {
	name  string
	value string
}

// has reports whether any of the flags names was given.
func (c *call) has(names ...string) bool {
	for _, g := range c.flags {
		for _, n := range names {
			if g.name == n {
				return true
			}
		}
	}
	return false
}

// command says why the simple command ws is left to a person, or "".
func (j *judge) command(ws []word) string {
	if len(ws) == 0 {
		return "no command"
	}
	w := ws[0]
	switch {
	case !w.plain || w.glob:
		return fmt.Sprintf("the program's name %q is quoted, escaped or a glob", w.value)
	case strings.Contains(w.value, "/"):
		return fmt.Sprintf("%s: a program named by its path", w.value)
	}
	p := j.programs[w.value]
	switch {
	case p == nil:
		return fmt.Sprintf("%s: not on the allow-list", w.value)
	case p.runsCode && !j.code:
		return fmt.Sprintf("%s: runs the project's code", w.value)
	}
	return j.run(p, ws[1:])
}

// run says why p with the arguments ws is left to a person, or "".
func (j *judge) run(p *compiled, ws []word) string {
	if len(p.subs) > 0 {
		sub, n := p.sub(ws)
		switch {
		case sub != nil:
			if sub.runsCode && !j.code {
				return fmt.Sprintf("%s: runs the project's code", sub.full)
			}
			return j.run(sub, ws[n:])
		case len(ws) == 0:
			return fmt.Sprintf("%s: no subcommand", p.full)
		case strings.HasPrefix(ws[0].value, "-"):
			return fmt.Sprintf("%s: options before the subcommand (%s) are left to a person", p.full, ws[0].value)
		case !ws[0].plain:
			return fmt.Sprintf("%s: the subcommand %q is quoted or escaped", p.full, ws[0].value)
		}
		return fmt.Sprintf("%s %s: not on the allow-list", p.full, ws[0].value)
	}
	for _, w := range ws {
		if why := p.never(w.value); why != "" {
			return why
		}
	}
	var c *call
	var why string
	switch p.style {
	case findExpr:
		c, why = j.parseFind(p, ws)
	case gnu, single:
		c, why = j.parseFlags(p, ws)
	default:
		return fmt.Sprintf("%s: the allow-list does not say how it reads its flags", p.full)
	}
	if why != "" {
		return why
	}
	if max := p.args.max; max >= 0 && len(c.pos) > max {
		if max == 0 {
			return fmt.Sprintf("%s: takes no arguments", p.full)
		}
		return fmt.Sprintf("%s: takes at most %d argument(s)", p.full, max)
	}
	if p.check != nil {
		return p.check(c)
	}
	return ""
}

// parseFlags reads ws as a program of style gnu or single reads them.
func (j *judge) parseFlags(p *compiled, ws []word) (*call, string) {
	c := &call{prog: p, afterDashDash: -1}
	dashDash := false
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case dashDash || v == "-" || !strings.HasPrefix(v, "-"):
			if why := j.positional(p, w, dashDash); why != "" {
				return nil, why
			}
			c.pos = append(c.pos, w)
		case v == "--":
			dashDash, c.afterDashDash = true, len(c.pos)
		case p.style == single || strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			if p.style == single && strings.HasPrefix(name, "--") {
				name = name[1:]
			}
			f, why := p.lookup(name)
			if why != "" {
				return nil, why
			}
			switch {
			case hasVal && f.arity == none:
				return nil, fmt.Sprintf("%s: %s takes no value", p.full, name)
			case hasVal:
				// The shell's expansions of a glob here all start with
				// the flag, so a glob stays this flag's value.
				if why := j.flagValue(p, f, val, w.glob); why != "" {
					return nil, why
				}
			case f.arity == required:
				i++
				if why := j.nextValue(p, f, ws, i); why != "" {
					return nil, why
				}
				val = ws[i].value
			}
			c.flags = append(c.flags, given{name, val})
		case p.digits && allDigits(v[1:]):
			c.flags = append(c.flags, given{"-NUM", v[1:]})
		default:
			var why string
			if i, why = j.bundle(c, ws, i); why != "" {
				return nil, why
			}
		}
	}
	return c, ""
}

// bundle reads the letters of the word ws[i] (-abc) as getopt does, and
// returns the index of the last word it used.
func (j *judge) bundle(c *call, ws []word, i int) (int, string) {
	p, v := c.prog, ws[i].value
	for k := 1; k < len(v); k++ {
		name := "-" + v[k:k+1]
		f, why := p.lookup(name)
		if why != "" {
			return i, why
		}
		switch {
		case f.arity == none:
			c.flags = append(c.flags, given{name: name})
			continue
		case k+1 < len(v):
			val := v[k+1:]
			if why := j.flagValue(p, f, val, ws[i].glob); why != "" {
				return i, why
			}
			c.flags = append(c.flags, given{name, val})
		case f.arity == required:
			i++
			if why := j.nextValue(p, f, ws, i); why != "" {
				return i, why
			}
			c.flags = append(c.flags, given{name, ws[i].value})
		default:
			c.flags = append(c.flags, given{name: name})
		}
		return i, ""
	}
	return i, ""
}

// nextValue checks ws[i], the word that is the value of the flag before it.
func (j *judge) nextValue(p *compiled, f flag, ws []word, i int) string {
	if i >= len(ws) {
		return fmt.Sprintf("%s: %s needs a value", p.full, f.name)
	}
	if ws[i].glob {
		// A glob may expand to several words, the rest taken as arguments.
		return fmt.Sprintf("%s: the value of %s is an unquoted glob", p.full, f.name)
	}
	return j.flagValue(p, f, ws[i].value, false)
}

// flagValue checks the value v of the flag f.
func (j *judge) flagValue(p *compiled, f flag, v string, glob bool) string {
	if f.kind == numValue && !number().MatchString(v) {
		return fmt.Sprintf("%s: %s takes a number, not %q", p.full, f.name, v)
	}
	if why := p.never(v); why != "" {
		return why
	}
	if name, _, _ := strings.Cut(v, "="); p.refused[name] != "" || (len(v) > 2 && v[0] == '-' && v[1] != '-' && p.refused[v[:2]] != "") {
		// Taken as the value here, as getopt does; refused all the same,
		// should the program read it otherwise.
		return fmt.Sprintf("%s: the value %q of %s is a flag it refuses", p.full, v, f.name)
	}
	if why := j.checkValue(v, glob); why != "" {
		return fmt.Sprintf("%s: %s", p.full, why)
	}
	return ""
}

// positional checks an argument that is not a flag; dashDash is set after --.
func (j *judge) positional(p *compiled, w word, dashDash bool) string {
	if w.glob {
		switch {
		case p.args.noGlob || p.args.max >= 0:
			return fmt.Sprintf("%s: the unquoted glob %q, where the number or kind of arguments matters", p.full, w.value)
		case w.leadingGlob && !dashDash:
			return fmt.Sprintf("%s: the glob %q may expand to a name that starts with - (write ./%s)", p.full, w.value, w.value)
		}
	}
	if why := j.checkValue(w.value, w.glob); why != "" {
		return fmt.Sprintf("%s: %s", p.full, why)
	}
	return ""
}

// allDigits reports whether s is a non-empty string of ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
