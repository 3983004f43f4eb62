package playbooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	yamlast "github.com/goccy/go-yaml/ast"
)

// spawnRoots are the names a spawn template can read: the program is not
// running yet, so there is no match, state, step, screen or time to read.
var spawnRoots = map[string]bool{"vars": true, "env": true, requireEnv: true}

// spawnTemplate compiles the {{ }} templates of the spawn value text of field
// (command[1], shell, env.NAME, dir), decoded from n, into s, and reports an
// error at n for a template that does not compile or reads more than vars and
// env.
func (d *decoder) spawnTemplate(s *Spawn, n yamlast.Node, text, field string) {
	if !strings.Contains(text, "{{") && !strings.Contains(text, "}}") {
		return
	}
	t, err := compileTemplate(text, s.env)
	if err == nil {
		err = spawnReads(t)
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			d.errorAt(d.resolve(n), "template", "spawn templates are {{ vars.NAME }} and {{ env.NAME }}, read before the program starts; write {{ \"{{\" }} for literal braces", "spawn.%s: %s", field, line)
		}
		return
	}
	t.Pos = d.pos(d.resolve(n))
	if s.templates == nil {
		s.templates = map[string]*Template{}
	}
	s.templates[field] = t
}

// spawnExpansion reports an error at n for a ${VAR} that does not parse in the
// spawn value text of field: in the text around its {{ }} templates, which is
// what Render expands. A value whose templates did not compile is left out.
func (d *decoder) spawnExpansion(s *Spawn, n yamlast.Node, text, field string) {
	literals := []string{text}
	if t := s.templates[field]; t != nil {
		literals = literals[:0]
		for _, p := range t.parts {
			if p.program == nil {
				literals = append(literals, p.text)
			}
		}
	} else if strings.Contains(text, "{{") || strings.Contains(text, "}}") {
		return
	}
	for _, lit := range literals {
		if _, err := ExpandVars(lit, func(string) string { return "" }); err != nil {
			d.errorAt(d.resolve(n), "template", "write ${NAME} or ${NAME:-default}; a bare $name is left to the shell", "spawn.%s: %v", field, err)
			return
		}
	}
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
func isEnvRoot(name string) bool { return slices.Contains(envRoots, name) }

// identifiers is an ast.Visitor that calls itself for each identifier.
type identifiers func(id *ast.IdentifierNode)

// Visit implements ast.Visitor.
func (f identifiers) Visit(node *ast.Node) {
	if id, ok := (*node).(*ast.IdentifierNode); ok {
		f(id)
	}
}

// Render gives the value src of a spawn field (command[N], shell, env.NAME or
// dir) with the {{ }} templates it was written with rendered over vars and
// environ. The text around the templates goes through literal (which expands
// ${VAR}); what a template yields is kept as it is, so a value given with
// --var is never expanded again.
func (s *Spawn) Render(field, src string, vars, environ map[string]string, literal func(string) (string, error)) (string, error) {
	t := s.templates[field]
	if t == nil || t.Source != src {
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

// ReplaceCommand makes argv the program to run, instead of the command or
// shell line the playbook gives; argv is taken as it is, without templates.
func (s *Spawn) ReplaceCommand(argv []string) {
	s.Command, s.Shell = slices.Clone(argv), ""
	kept := map[string]*Template{}
	for field, t := range s.templates {
		if field != "shell" && !strings.HasPrefix(field, "command[") {
			kept[field] = t
		}
	}
	s.templates = kept
}
