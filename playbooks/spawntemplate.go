package playbooks

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr/ast"
	yamlast "github.com/goccy/go-yaml/ast"
)

// spawnRoots are the names a spawn template can read: the program is not
// running yet, so there is no match, state, step, screen or time to read.
var spawnRoots = map[string]bool{"vars": true, "env": true, requireEnv: true}

// spawnTemplate compiles the {{ }} templates of a spawn value text, decoded
// from n, into s, and reports an error at n for a template that does not
// compile or reads more than vars and env.
func (d *decoder) spawnTemplate(s *Spawn, n yamlast.Node, text, where string) {
	if !strings.Contains(text, "{{") && !strings.Contains(text, "}}") {
		return
	}
	t, err := compileTemplate(text, s.env)
	if err == nil {
		err = spawnReads(t)
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			d.errorAt(d.resolve(n), "template", "spawn templates are {{ vars.NAME }} and {{ env.NAME }}, read before the program starts; write {{ \"{{\" }} for literal braces", "%s: %s", where, line)
		}
		return
	}
	t.Pos = d.pos(d.resolve(n))
	if s.templates == nil {
		s.templates = map[string]*Template{}
	}
	s.templates[text] = t
}

// spawnReads returns an error for the first name of t's expressions that is
// not vars or env.
func spawnReads(t *Template) error {
	for _, p := range t.parts {
		if p.program == nil {
			continue
		}
		var bad *ast.IdentifierNode
		root := p.program.Node()
		ast.Walk(&root, identifiers(func(id *ast.IdentifierNode) {
			if bad == nil && isEnvRoot(id.Value) && !spawnRoots[id.Value] {
				bad = id
			}
		}))
		if bad != nil {
			return fmt.Errorf("{{ %s }}: %s is not known before the program starts; spawn reads vars and env only (column %d)", p.expr, bad.Value, bad.Location().From+1)
		}
	}
	return nil
}

// isEnvRoot reports whether name is a top-level name of an expression environment.
func isEnvRoot(name string) bool {
	switch name {
	case "match", "vars", "env", "state", "elapsed", "idle", "fired", "step", "screen", "exit_code":
		return true
	}
	return false
}

// identifiers is an ast.Visitor that calls itself for each identifier.
type identifiers func(id *ast.IdentifierNode)

// Visit implements ast.Visitor.
func (f identifiers) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok {
		f(id)
	}
}

// Render gives a spawn value as written (an entry of Command, Shell, a value of
// Env, or Dir) with its {{ }} templates rendered over vars and environ. The
// text around the templates goes through literal (which expands ${VAR});
// what a template yields is kept as it is, so a value given with --var is
// never expanded again.
func (s *Spawn) Render(src string, vars, environ map[string]string, literal func(string) (string, error)) (string, error) {
	t := s.templates[src]
	if t == nil {
		return literal(src)
	}
	var b strings.Builder
	values := &Values{Vars: vars, Environ: environ}
	for _, p := range t.parts {
		if p.program == nil {
			text, err := literal(p.text)
			if err != nil {
				return "", err
			}
			b.WriteString(text)
			continue
		}
		one := Template{parts: []templatePart{p}}
		out, err := one.Append(nil, s.env, values)
		if err != nil {
			return "", err
		}
		b.Write(out)
	}
	return b.String(), nil
}
