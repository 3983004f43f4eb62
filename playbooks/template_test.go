package playbooks

import (
	"strings"
	"testing"
)

// A }} inside a string literal or a map does not end the expression: the
// template reads its {{ }} parts as expr-lang reads the expression.
func TestTemplateReadsStringsAndBracesAsExprDoes(t *testing.T) {
	t.Parallel()
	env := newEnvOf(nil, newVarsStruct([]string{"name"}))
	for _, c := range []struct{ src, want string }{
		{`{{ "a}}b" }}`, `a}}b`},
		{`{{ 'a}}b' }}`, `a}}b`},
		{"{{ `a}}b` }}", `a}}b`},
		{`{{ "a\"}}b" }}`, `a"}}b`},
		{`{{ 'it\'s }}' }}`, `it's }}`},
		{`{{ "back\\" }}`, `back\`},
		{"{{ `x``}}` }}", "x`}}"},
		{`{{ {"k": "}}"}.k }}`, `}}`},
		{`{{ {"k": {"j": 1}}.k.j }}`, `1`},
		{`x {{ vars.name }} y {{ "}}" + '{{' }} z`, `x clai y }}{{ z`},
	} {
		tpl, err := compileTemplate(c.src, env)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		got, err := tpl.Render(env, Values{Vars: map[string]string{"name": "clai"}})
		if err != nil || got != c.want {
			t.Errorf("%s renders %q, %v; want %q", c.src, got, err, c.want)
		}
	}
}

func TestTemplateStringLeftOpen(t *testing.T) {
	t.Parallel()
	env := newEnvOf(nil, newVarsStruct(nil))
	for _, c := range []struct{ src, want string }{
		{`{{ "a}} }}`, "the string at byte 4 in the {{ at byte 1 is never closed"},
		{"ab {{ 'a\n' }}", "the string at byte 7 in the {{ at byte 4 is never closed"},
		{"{{ `a }}", "the string at byte 4 in the {{ at byte 1 is never closed"},
		{`{{ "a" `, "{{ at byte 1 is never closed with }}"},
	} {
		_, err := compileTemplate(c.src, env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}
