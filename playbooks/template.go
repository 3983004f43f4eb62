package playbooks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/clai-sh/clai/internal/lazyre"
)

// Template is text with {{ expression }} parts, compiled once.
type Template struct {
	Pos
	Source string
	parts  []templatePart
	// runs is set when a part runs an expression, which may read any value.
	runs bool
}

type templatePart struct {
	text    string
	expr    string
	program *vm.Program
	// scope and name, when set, are a value the part reads directly, without
	// running the program: match.text, match.NAME or vars.NAME.
	scope, name string
}

// directField recognises the expressions a template part can read directly.
var directField = &lazyre.Regexp{Expr: `^(match|vars)\.[A-Za-z_][A-Za-z0-9_]*$`}

// appendField appends the value of a direct field to dst.
func appendField(dst []byte, scope, name string, v *Values) []byte {
	switch {
	case scope == "vars":
		return append(dst, v.Vars[name]...)
	case name == "text":
		return append(dst, v.Text...)
	}
	return v.appendGroup(dst, name)
}

// IsStatic reports whether the template has no expressions.
func (t *Template) IsStatic() bool {
	for _, p := range t.parts {
		if p.program != nil {
			return false
		}
	}
	return true
}

// Plain reports whether the template reads nothing but the match's text, its
// named groups and the variables ({{ match.text }}, {{ match.NAME }},
// {{ vars.NAME }}), so that no other value need be set to render it.
func (t *Template) Plain() bool { return !t.runs }

// Render evaluates the template with the values of env.
func (t *Template) Render(env *Env, v Values) (string, error) {
	if len(t.parts) == 1 && t.parts[0].program == nil {
		// A literal is its own text.
		return t.parts[0].text, nil
	}
	b, err := t.Append(nil, env, &v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Append renders the template as Render does, after dst, and returns the
// extended slice: a caller that reuses the memory renders without allocating.
func (t *Template) Append(dst []byte, env *Env, v *Values) ([]byte, error) {
	var value any
	for _, p := range t.parts {
		switch {
		case p.program == nil:
			dst = append(dst, p.text...)
		case p.scope != "":
			dst = appendField(dst, p.scope, p.name, v)
		default:
			if value == nil {
				value = env.Value(*v)
			}
			out, err := expr.Run(p.program, value)
			if err != nil {
				return dst, fmt.Errorf("template {{ %s }}: %w", p.expr, runError(err))
			}
			if out != nil {
				dst = fmt.Append(dst, out)
			}
		}
	}
	return dst, nil
}

// compileTemplate splits src into text and {{ }} expressions and compiles each in env.
func compileTemplate(src string, env *Env) (*Template, error) {
	t := &Template{Source: src}
	var errs []error
	rest := src
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			if close := strings.Index(rest, "}}"); close >= 0 {
				errs = append(errs, fmt.Errorf("stray }} at byte %d", len(src)-len(rest)+close+1))
			}
			if rest != "" || len(t.parts) == 0 {
				t.parts = append(t.parts, templatePart{text: rest})
			}
			break
		}
		if open > 0 {
			t.parts = append(t.parts, templatePart{text: rest[:open]})
		}
		body := rest[open+2:]
		close, quote := exprEnd(body)
		if close < 0 {
			at := len(src) - len(rest) + open + 1
			if quote >= 0 {
				errs = append(errs, fmt.Errorf("the string at byte %d in the {{ at byte %d is never closed", at+2+quote, at))
			} else {
				errs = append(errs, fmt.Errorf("{{ at byte %d is never closed with }}", at))
			}
			break
		}
		code := strings.TrimSpace(body[:close])
		if code == "" {
			errs = append(errs, fmt.Errorf("empty {{ }} at byte %d", len(src)-len(rest)+open+1))
		} else if prog, err := env.compile(code, false); err != nil {
			errs = append(errs, fmt.Errorf("{{ %s }}: %w", code, err))
		} else {
			part := templatePart{expr: code, program: prog}
			if directField.Get().MatchString(code) && (code == "match.text" || !strings.HasPrefix(code, "match.groups")) {
				part.scope, part.name, _ = strings.Cut(code, ".")
			} else {
				t.runs = true
			}
			t.parts = append(t.parts, part)
		}
		rest = body[close+2:]
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return t, nil
}

// exprEnd returns the index in body of the }} that ends the expression it
// starts with, reading the expression as expr-lang does, so that a }} inside
// a string literal or closing a map or a predicate ({…}) does not end it:
// "…" and '…' take backslash escapes and end at the line's end, `…` takes a
// doubled backquote for a backquote. It returns -1 when no }} ends the
// expression, with the index of the string left open, if any, else -1.
func exprEnd(body string) (end, open int) {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			} else if i+1 < len(body) && body[i+1] == '}' {
				return i, -1
			}
		case '"', '\'', '`':
			j := stringEnd(body, i)
			if j < 0 {
				return -1, i
			}
			i = j
		}
	}
	return -1, -1
}

// stringEnd returns the index of the quote that closes the string literal
// starting at body[start], or -1.
func stringEnd(body string, start int) int {
	q := body[start]
	for j := start + 1; j < len(body); j++ {
		switch {
		case body[j] == q && q == '`' && j+1 < len(body) && body[j+1] == '`':
			j++ // a doubled backquote stands for one
		case body[j] == q:
			return j
		case q == '`':
		case body[j] == '\\':
			j++
		case body[j] == '\n':
			return -1
		}
	}
	return -1
}
