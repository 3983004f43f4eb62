package safecmd

import (
	"fmt"
	"strings"
	"sync"
)

// compiled is a program of the allow-list with its flags in maps.
type compiled struct {
	*program
	// full is how it is called: "ls", "git log".
	full string
	// runsCode is set when it runs the project's code: it, or the program
	// it is a subcommand of, is marked code.
	runsCode bool
	// flags are the allowed flags by name ("-n", "--lines", "-name");
	// refused the flags known to write, delete or run, by name, with why.
	flags   map[string]flag
	refused map[string]string
	subs    []*compiled
}

// tableSet is the allow-list, compiled.
type tableSet struct {
	// programs are the programs by name.
	programs map[string]*compiled
	// order is every program in the order of the tables, for the docs.
	order []*compiled
}

// tables compiles the allow-list once.
var tables = sync.OnceValues(func() (*tableSet, error) {
	t := &tableSet{programs: map[string]*compiled{}}
	for _, list := range [][]*program{readOnlyPrograms, projectPrograms} {
		for _, p := range list {
			c, err := compile(p, p.name, p.code)
			if err != nil {
				return nil, err
			}
			if t.programs[p.name] != nil {
				return nil, fmt.Errorf("%s is listed twice", p.name)
			}
			t.programs[p.name] = c
			t.order = append(t.order, c)
		}
	}
	return t, nil
})

// compile compiles p, called as full; code is inherited by its subcommands.
func compile(p *program, full string, code bool) (*compiled, error) {
	c := &compiled{program: p, full: full, runsCode: code, flags: map[string]flag{}, refused: map[string]string{}}
	for _, spec := range p.flags {
		fs, err := parseFlagSpec(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", full, err)
		}
		for _, f := range fs {
			if _, dup := c.flags[f.name]; dup {
				return nil, fmt.Errorf("%s: flag %s is listed twice", full, f.name)
			}
			c.flags[f.name] = f
		}
	}
	for _, spec := range p.refused {
		names, why, err := parseRefused(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", full, err)
		}
		for _, n := range names {
			if _, allowed := c.flags[n]; allowed {
				return nil, fmt.Errorf("%s: %s is both allowed and refused", full, n)
			}
			c.refused[n] = why
		}
	}
	for _, s := range p.subs {
		sc, err := compile(s, full+" "+s.name, code || s.code)
		if err != nil {
			return nil, err
		}
		c.subs = append(c.subs, sc)
	}
	return c, nil
}

// sub returns the subcommand ws start with, and how many words name it.
func (c *compiled) sub(ws []word) (*compiled, int) {
	for _, s := range c.subs {
		names := strings.Fields(s.name)
		if len(ws) < len(names) {
			continue
		}
		match := true
		for i, n := range names {
			if !ws[i].plain || ws[i].value != n {
				match = false
				break
			}
		}
		if match {
			return s, len(names)
		}
	}
	return nil, 0
}

// lookup returns the allowed flag called name, or why it is refused.
func (c *compiled) lookup(name string) (flag, string) {
	if f, ok := c.flags[name]; ok {
		return f, ""
	}
	if why, ok := c.refused[name]; ok {
		return flag{}, fmt.Sprintf("%s: %s %s", c.full, name, why)
	}
	return flag{}, fmt.Sprintf("%s: %s is not on the allow-list", c.full, name)
}
