package playbooks

import (
	"fmt"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/internal/lazyre"
)

// actionKeys are the keys that make an action, in documentation order.
var actionKeys = []string{"send", "line", "keys", "choose", "secret"}

// withActions appends the action keys to an element's own keys.
func withActions(keys ...string) []string {
	return append(keys, actionKeys...)
}

// action decodes the action keys present in an element: nil when there is none, and
// an error when there are several.
func (d *decoder) action(n ast.Node, present map[string]entry, what string, env *Env, allowed []string) *Action {
	var found []entry
	for _, k := range actionKeys {
		if e, ok := present[k]; ok {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if len(found) > 1 {
		d.errorAt(found[1].keyN, "schema", "keep one action; to send text then a key, use send: \"text\\r\" or line:", "%s has both %s and %s; it takes one action", what, found[0].key, found[1].key)
		return nil
	}
	e := found[0]
	kind := ActionKind(e.key)
	if allowed != nil && !containsKind(allowed, kind) {
		d.errorAt(e.keyN, "schema", "a refusal is send:, line: or keys:", "%s cannot %s", what, kind)
		return nil
	}
	a := &Action{Pos: d.pos(e.keyN), Kind: kind}
	where := sub(what, e.key)
	switch kind {
	case ActSend, ActLine:
		text, ok := d.str(e.value, where)
		if !ok {
			return nil
		}
		t, err := compileTemplate(text, env)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				d.errorAt(d.resolve(e.value), "template", "templates are {{ expression }} over match, vars, env, state, step …; write {{ \"{{\" }} for literal braces", "%s: %s", where, line)
			}
			return nil
		}
		t.Pos = d.pos(d.resolve(e.value))
		a.Text = t
	case ActKeys:
		keys, ok := d.keyList(e.value, where)
		if !ok {
			return nil
		}
		a.Keys = keys
	case ActChoose:
		p := d.pattern(e.value, where, false)
		if p == nil {
			return nil
		}
		a.Choose = p
	case ActSecret:
		ref, ok := d.secret(e.value, where)
		if !ok {
			return nil
		}
		a.Secret = ref
	}
	return a
}

func containsKind(allowed []string, k ActionKind) bool {
	for _, a := range allowed {
		if a == string(k) {
			return true
		}
	}
	return false
}

var secretSyntax = &lazyre.Regexp{Expr: `^(env|file):(.+)$`}

func (d *decoder) secret(n ast.Node, what string) (SecretRef, bool) {
	s, ok := d.str(n, what)
	if !ok {
		return SecretRef{}, false
	}
	m := secretSyntax.Get().FindStringSubmatch(s)
	if m == nil {
		// Never echo the value: it may be the secret itself, written by mistake.
		d.errorAt(d.resolve(n), "schema", "write env:NAME to read the environment variable NAME, or file:PATH to read a file; never the secret itself", "%s must name where the secret comes from", what)
		return SecretRef{}, false
	}
	return SecretRef{Source: SecretSource(m[1]), Name: m[2]}, true
}

func (d *decoder) step(n ast.Node, index int, vars []string, defaultTimeout time.Duration) *Step {
	what := fmt.Sprintf("steps[%d]", index)
	s := &Step{Pos: d.pos(d.resolve(n)), Index: index, Timeout: defaultTimeout}
	present, ok := d.fields(n, what, withActions("name", "expect", "timeout"), func(string, ast.Node) {})
	if !ok {
		return nil
	}
	if name, ok := d.itemName(n, present, what); ok {
		s.Name = name
		what = fmt.Sprintf("step %q", s.Name)
	}
	if e, ok := present["timeout"]; ok {
		s.Timeout, _ = d.duration(e.value, sub(what, "timeout"))
	}
	failed := false
	if e, ok := present["expect"]; ok {
		if isCaseList(d, e.value) {
			s.Cases = d.cases(e.value, what, vars)
			for _, k := range actionKeys {
				if a, has := present[k]; has {
					d.errorAt(a.keyN, "schema", "move the action into the case it answers", "%s branches into cases, so its %s belongs in a case", what, k)
				}
			}
		} else {
			s.Expect, s.ExpectPos = d.matcher(e.value, sub(what, "expect"), true)
			failed = s.Expect == nil
		}
	}
	if _, own := present["timeout"]; !own && s.Expect != nil && s.Expect.OnlyEOF() {
		// The program ends when its work is done: an install, a build, a
		// long key take longer than a step's default. Only the step's own
		// timeout or timeouts.total bound the wait.
		s.Timeout = 0
	}
	s.Env = d.envFor(s.Expect, failed, vars)
	if s.Cases == nil {
		s.Action = d.action(n, present, what, s.Env, nil)
	}
	s.Branches() // made once here, so that running the playbook never races on it
	if _, hasExpect := present["expect"]; !hasExpect && s.Action == nil && !hasAnyAction(present) && !d.mistypedAction(n) && !d.mistyped(n, "expect") {
		d.errorAt(n, "schema", "add expect: to wait for text, or an action (send, line, keys, choose, secret) to act at once", "%s has neither expect nor an action", what)
	}
	return s
}

// itemName decodes the name of a step, rule or danger rule n, and reports
// whether it has one. A name that does not decode, or that a misspelt key was
// meant to give, makes the playbook's names unsure.
func (d *decoder) itemName(n ast.Node, present map[string]entry, what string) (string, bool) {
	e, ok := present["name"]
	if !ok {
		if d.mistyped(n, "name") {
			d.namesUnsure = true
		}
		return "", false
	}
	name, ok := d.text(e.value, sub(what, "name"))
	if !ok {
		d.namesUnsure = true
	}
	return name, true
}

// mistypedAction reports whether a misspelt key of n was taken for an action key.
func (d *decoder) mistypedAction(n ast.Node) bool {
	for _, k := range actionKeys {
		if d.mistyped(n, k) {
			return true
		}
	}
	return false
}

func hasAnyAction(present map[string]entry) bool {
	for _, k := range actionKeys {
		if _, ok := present[k]; ok {
			return true
		}
	}
	return false
}

// isCaseList reports whether an expect value is a list of cases rather than patterns.
func isCaseList(d *decoder, n ast.Node) bool {
	seq, ok := d.resolve(n).(*ast.SequenceNode)
	if !ok {
		return false
	}
	for _, item := range seq.Values {
		es, ok := d.peekKeys(item)
		if ok && es["case"] {
			return true
		}
	}
	return false
}

// peekKeys returns the keys of a mapping without reporting anything.
func (d *decoder) peekKeys(n ast.Node) (map[string]bool, bool) {
	var values []*ast.MappingValueNode
	switch v := d.resolve(n).(type) {
	case *ast.MappingNode:
		values = v.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{v}
	default:
		return nil, false
	}
	keys := map[string]bool{}
	for _, mv := range values {
		if k, ok := d.resolve(mv.Key).(*ast.StringNode); ok {
			keys[k.Value] = true
		}
	}
	return keys, true
}

func (d *decoder) cases(n ast.Node, what string, vars []string) []*Case {
	items, _ := d.seq(n, sub(what, "expect"))
	var out []*Case
	for i, item := range items {
		cwhat := fmt.Sprintf("%s case %d", what, i+1)
		if keys, ok := d.peekKeys(item); !ok || !keys["case"] {
			d.errorAt(item, "schema", "write each branch as - case: PATTERN, with its action", "%s: every entry of a list of cases needs case:", cwhat)
			continue
		}
		c := &Case{Pos: d.pos(d.resolve(item))}
		present, ok := d.fields(item, cwhat, withActions("case", "repeat"), func(key string, v ast.Node) {
			if key == "repeat" {
				c.Repeat, _ = d.boolean(v, cwhat+" repeat")
			}
		})
		if !ok {
			continue
		}
		c.Match, c.MatchPos = d.matcher(present["case"].value, cwhat, true)
		c.Env = d.envFor(c.Match, c.Match == nil, vars)
		c.Action = d.action(item, present, cwhat, c.Env, nil)
		out = append(out, c)
	}
	return out
}

func (d *decoder) rule(n ast.Node, index int, vars []string) *Rule {
	what := fmt.Sprintf("rules[%d]", index)
	r := &Rule{Pos: d.pos(d.resolve(n))}
	present, ok := d.fields(n, what, withActions("name", "match", "when", "cooldown", "limit", "examples"), func(string, ast.Node) {})
	if !ok {
		return nil
	}
	d.require(n, present, what, "name", "match")
	if name, ok := d.itemName(n, present, what); ok {
		r.Name = name
		what = fmt.Sprintf("rule %q", r.Name)
	}
	failed := false
	if e, ok := present["match"]; ok {
		r.Match, r.MatchPos = d.matcher(e.value, sub(what, "match"), false)
		failed = r.Match == nil
	}
	r.Env = d.envFor(r.Match, failed, vars)
	if e, ok := present["when"]; ok {
		r.When = d.when(e.value, what, r.Env)
	}
	if e, ok := present["cooldown"]; ok {
		r.Cooldown, _ = d.duration(e.value, sub(what, "cooldown"))
	}
	if e, ok := present["limit"]; ok {
		r.Limit, _ = d.integer(e.value, sub(what, "limit"), 1, 1_000_000)
	}
	if e, ok := present["examples"]; ok {
		r.Examples = d.examples(e.value, what)
	}
	r.Action = d.action(n, present, what, r.Env, nil)
	if r.Action == nil && !hasAnyAction(present) && !d.mistypedAction(n) {
		d.errorAt(n, "schema", "add what to answer: send, line, keys, choose or secret", "%s has no action", what)
	}
	return r
}

func (d *decoder) when(n ast.Node, what string, env *Env) *Expr {
	src, ok := d.text(n, sub(what, "when"))
	if !ok {
		return nil
	}
	prog, err := env.compile(src, true)
	if err != nil {
		hint := "when is an expr-lang expression over match, vars, env, state, elapsed, idle, fired, step, screen and exit_code that yields true or false"
		if isCommandCallError(err) {
			hint = "call readOnly and projectCode with the command line as one string, e.g. readOnly(match.cmd) with a group (?P<cmd>…) in the pattern"
		}
		d.errorAt(d.resolve(n), "expr", hint, "%s: %s", sub(what, "when"), err.Error())
		return nil
	}
	d.checkConstantCommands(d.pos(d.resolve(n)), sub(what, "when"), prog)
	return &Expr{Pos: d.pos(d.resolve(n)), Source: src, program: prog}
}

func (d *decoder) danger(n ast.Node, index int, vars []string) *Danger {
	what := fmt.Sprintf("danger[%d]", index)
	r := &Danger{Pos: d.pos(d.resolve(n)), Action: DangerManual}
	present, ok := d.fields(n, what, []string{"name", "match", "action", "send", "line", "keys", "examples"}, func(string, ast.Node) {})
	if !ok {
		return nil
	}
	d.require(n, present, what, "name", "match")
	if name, ok := d.itemName(n, present, what); ok {
		r.Name = name
		what = fmt.Sprintf("danger rule %q", r.Name)
	}
	failed := false
	if e, ok := present["match"]; ok {
		r.Match, _ = d.matcher(e.value, sub(what, "match"), false)
		failed = r.Match == nil
	}
	r.Env = d.envFor(r.Match, failed, vars)
	if e, ok := present["action"]; ok {
		if a := d.enum(e.value, sub(what, "action"), []string{"manual", "deny", "abort"}); a != "" {
			r.Action = DangerAction(a)
		}
	}
	r.Refusal = d.action(n, present, what, r.Env, []string{"send", "line", "keys"})
	switch {
	case r.Action == DangerDeny && r.Refusal == nil && !hasAnyAction(present):
		d.errorAt(present["action"].value, "schema", `add the refusal, e.g. line: "n" or keys: [esc]`, "%s denies but says nothing to send", what)
	case r.Action != DangerDeny && hasAnyAction(present):
		d.errorAt(n, "schema", "set action: deny to answer with a refusal, or remove the send/line/keys", "%s with action %s sends nothing, so it takes no send/line/keys", what, r.Action)
	}
	if e, ok := present["examples"]; ok {
		r.Examples = d.examples(e.value, what)
	}
	return r
}

// examples decodes the examples: of a rule or danger rule what.
func (d *decoder) examples(n ast.Node, what string) []Example {
	var out []Example
	items, _ := d.seq(n, sub(what, "examples"))
	for i, item := range items {
		if text, ok := d.str(item, fmt.Sprintf("%s.examples[%d]", what, i)); ok {
			out = append(out, Example{Pos: d.pos(d.resolve(item)), Text: text})
		}
	}
	return out
}

// testStates are the final states a playbook test may expect.
var testStates = []string{"starting", "running", "prompting", "nudging", "manual", "done", "timeout", "failed", "aborted"}

func (d *decoder) test(n ast.Node, index int) *Test {
	what := fmt.Sprintf("tests[%d]", index)
	t := &Test{Pos: d.pos(d.resolve(n))}
	present, ok := d.fields(n, what, []string{"name", "output", "cast", "size", "project", "vars", "expect"}, func(string, ast.Node) {})
	if !ok {
		return nil
	}
	d.require(n, present, what, "name")
	if e, ok := present["name"]; ok {
		t.Name, _ = d.text(e.value, sub(what, "name"))
		what = fmt.Sprintf("test %q", t.Name)
	}
	_, hasOutput := present["output"]
	_, hasCast := present["cast"]
	switch {
	case hasOutput && hasCast:
		d.errorAt(present["cast"].keyN, "schema", "keep output: for text, or cast: for a recording", "%s has both output and cast", what)
	case !hasOutput && !hasCast:
		d.errorAt(n, "schema", `add output: "program text…" or cast: recording.cast`, "%s has neither output nor cast", what)
	}
	if e, ok := present["output"]; ok {
		t.Output, _ = d.str(e.value, sub(what, "output"))
	}
	if e, ok := present["cast"]; ok {
		t.Cast, _ = d.text(e.value, sub(what, "cast"))
	}
	if e, ok := present["size"]; ok {
		t.Size = d.termSize(e.value, sub(what, "size"))
	}
	if e, ok := present["project"]; ok {
		t.Project, _ = d.text(e.value, sub(what, "project"))
	}
	if e, ok := present["vars"]; ok {
		t.Vars = d.vars(e.value)
	}
	if e, ok := present["expect"]; ok {
		d.fields(e.value, sub(what, "expect"), []string{"state", "sent", "fired", "exit"}, func(key string, v ast.Node) {
			switch key {
			case "state":
				if s := d.enum(v, sub(what, "expect.state"), testStates); s != "" {
					t.Expect.State = &s
				}
			case "sent":
				if s, ok := d.str(v, sub(what, "expect.sent")); ok {
					t.Expect.Sent = &s
				}
			case "fired":
				t.Expect.Fired, _ = d.strings(v, sub(what, "expect.fired"))
			case "exit":
				if x, ok := d.integer(v, sub(what, "expect.exit"), 0, 255); ok {
					t.Expect.Exit = &x
				}
			}
		})
	}
	return t
}
