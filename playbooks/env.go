package playbooks

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// StepInfo is the step part of the expression environment.
type StepInfo struct {
	Name  string `expr:"name"`
	Index int    `expr:"index"`
	Tries int    `expr:"tries"`
}

// Values are the run-time values of an expression environment.
type Values struct {
	// Text is the matched text, Groups the groups by number (0 is the whole match),
	// Named the named groups. SetMatch fills them from a match lazily instead.
	Text   string
	Groups []string
	Named  map[string]string
	// The match SetMatch recorded: its text, submatch indices and pattern.
	src []byte
	loc []int
	pat *pattern.Pattern
	// Vars are the playbook variables after --var overrides.
	Vars     map[string]string
	Environ  map[string]string
	State    string
	Elapsed  time.Duration
	Idle     time.Duration
	Fired    map[string]int
	Step     StepInfo
	Screen   string
	ExitCode int
	// Project is the folder the program works in, an absolute path: the
	// project readOnly(cmd) and projectCode(cmd) check paths against ("":
	// no absolute path is inside it).
	Project string
}

// SetMatch records a match of p in text at loc (Pattern.Find's indices), whose
// text the caller made the string matched. Its groups are read from text only
// when an expression asks for them, so text must stay unchanged while the values
// are in use.
func (v *Values) SetMatch(p *pattern.Pattern, text []byte, loc []int, matched string) {
	v.src, v.loc, v.pat, v.Text = text, loc, p, matched
}

// groupList returns the groups by number.
func (v *Values) groupList() []string {
	if v.Groups == nil && v.pat != nil {
		v.Groups, v.Named = v.pat.Values(v.src, v.loc)
	}
	return v.Groups
}

// group returns the named group, or "".
func (v *Values) group(name string) string {
	if v.Named != nil {
		return v.Named[name]
	}
	return string(v.appendGroup(nil, name))
}

// appendGroup appends the named group to dst, read from the matched text
// itself when the groups were not asked for yet: nothing is copied twice.
func (v *Values) appendGroup(dst []byte, name string) []byte {
	if v.Named == nil && v.pat != nil && v.pat.Kind == pattern.Regex {
		i := v.pat.Regexp.SubexpIndex(name)
		if i < 0 || 2*i+1 >= len(v.loc) || v.loc[2*i] < 0 {
			return dst
		}
		return append(dst, v.src[v.loc[2*i]:v.loc[2*i+1]]...)
	}
	return append(dst, v.Named[name]...)
}

// Env is the typed expression environment of one place in a playbook: the names in
// docs/playbook.md ("Expressions"), with match carrying a field for each named group
// of the place's pattern and vars a field for each declared variable, so that a
// misspelt name fails when the playbook loads rather than when the rule fires.
type Env struct {
	root   reflect.Type
	match  reflect.Type
	vars   reflect.Type
	groups []string
	names  []string
	// maxGroups is how many match.groups the place's longest match has (the
	// whole match counts as one), or -1 when that is not known.
	maxGroups int
	// zero points at a zero value of root, the type-checking environment.
	zero any
}

var (
	stringType   = reflect.TypeFor[string]()
	durationType = reflect.TypeFor[time.Duration]()
)

// varsStruct is the struct type of vars.NAME: a field for each variable. One
// playbook's places share it, so it is built once a playbook (see
// decoder.envFor), not once a place: a playbook of many places and many
// variables would otherwise take time and memory in their product.
type varsStruct struct {
	names []string
	typ   reflect.Type
}

func newVarsStruct(names []string) *varsStruct {
	fields := make([]reflect.StructField, 0, len(names))
	for i, v := range names {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("V%d", i), Type: stringType, Tag: reflect.StructTag(fmt.Sprintf(`expr:%q`, v))})
	}
	return &varsStruct{names: names, typ: reflect.StructOf(fields)}
}

// newEnvOf builds the environment for a pattern with the given named groups.
func newEnvOf(groups []string, vars *varsStruct) *Env {
	matchFields := []reflect.StructField{
		{Name: "Text", Type: stringType, Tag: `expr:"text"`},
		{Name: "Groups", Type: reflect.TypeFor[[]string](), Tag: `expr:"groups"`},
	}
	for i, g := range groups {
		if g == "text" || g == "groups" {
			continue
		}
		matchFields = append(matchFields, reflect.StructField{Name: fmt.Sprintf("G%d", i), Type: stringType, Tag: reflect.StructTag(fmt.Sprintf(`expr:%q`, g))})
	}
	return buildEnv(reflect.StructOf(matchFields), groups, vars)
}

// lenientEnv is the environment of a place whose pattern did not compile: any
// match.NAME type-checks, so the pattern's error is not repeated as errors about
// its groups. A playbook with such an error never runs.
func lenientEnv(vars *varsStruct) *Env {
	e := buildEnv(reflect.TypeFor[map[string]string](), nil, vars)
	e.maxGroups = -1
	return e
}

// envFor returns the environment of a place whose pattern m was decoded; failed
// says the pattern was there but did not compile. vars are the playbook's
// variables, the same at every place. An Env is never changed once built:
// places whose patterns have the same groups share one, so that a playbook of
// many rules builds its few environments once each, not once a rule.
func (d *decoder) envFor(m *pattern.Matcher, failed bool, vars []string) *Env {
	if d.varsStruct == nil {
		d.varsStruct = newVarsStruct(vars)
	}
	if failed {
		return lenientEnv(d.varsStruct)
	}
	var groups []string
	maxG := 0
	if m != nil {
		groups, maxG = m.GroupNames(), maxGroups(m)
	}
	key := envKey(m != nil, groups, maxG)
	if e, ok := d.envs[key]; ok {
		return e
	}
	e := newEnvOf(groups, d.varsStruct)
	if m != nil {
		e.maxGroups = maxG
	}
	if d.envs == nil {
		d.envs = map[string]*Env{}
	}
	d.envs[key] = e
	return e
}

// envKey says what an Env of envFor is built from: whether the place has a
// pattern, the names of its groups (word characters, so a NUL cannot be one)
// and its count of groups.
func envKey(matched bool, groups []string, maxGroups int) string {
	if !matched {
		return ""
	}
	return strconv.Itoa(maxGroups) + "\x00" + strings.Join(groups, "\x00")
}

func buildEnv(match reflect.Type, groups []string, vars *varsStruct) *Env {
	e := &Env{groups: groups, names: vars.names}
	e.match = match
	e.vars = vars.typ
	e.root = reflect.StructOf([]reflect.StructField{
		{Name: "Match", Type: e.match, Tag: `expr:"match"`},
		{Name: "Vars", Type: e.vars, Tag: `expr:"vars"`},
		{Name: "Env", Type: reflect.TypeFor[map[string]string](), Tag: `expr:"env"`},
		{Name: "State", Type: stringType, Tag: `expr:"state"`},
		{Name: "Elapsed", Type: durationType, Tag: `expr:"elapsed"`},
		{Name: "Idle", Type: durationType, Tag: `expr:"idle"`},
		{Name: "Fired", Type: reflect.TypeFor[map[string]int](), Tag: `expr:"fired"`},
		{Name: "Step", Type: reflect.TypeFor[StepInfo](), Tag: `expr:"step"`},
		{Name: "Screen", Type: stringType, Tag: `expr:"screen"`},
		{Name: "ExitCode", Type: reflect.TypeFor[int](), Tag: `expr:"exit_code"`},
		{Name: "ReadOnly", Type: commandCheckType, Tag: `expr:"readOnly"`},
		{Name: "ProjectCode", Type: commandCheckType, Tag: `expr:"projectCode"`},
	})
	e.zero = reflect.New(e.root).Interface()
	return e
}

// Value builds the environment value for a run of an expression: a pointer, so that
// handing it to expr copies nothing.
func (e *Env) Value(v Values) any {
	ptr := reflect.New(e.root)
	root := ptr.Elem()
	if match := root.Field(0); match.Kind() == reflect.Struct {
		match.Field(0).SetString(v.Text)
		match.Field(1).Set(reflect.ValueOf(v.groupList()))
		for i := 2; i < match.NumField(); i++ {
			match.Field(i).SetString(v.group(e.match.Field(i).Tag.Get("expr")))
		}
	}
	vars := root.Field(1)
	for i, name := range e.names {
		vars.Field(i).SetString(v.Vars[name])
	}
	root.Field(2).Set(reflect.ValueOf(v.Environ))
	root.Field(3).SetString(v.State)
	root.Field(4).SetInt(int64(v.Elapsed))
	root.Field(5).SetInt(int64(v.Idle))
	root.Field(6).Set(reflect.ValueOf(v.Fired))
	root.Field(7).Set(reflect.ValueOf(v.Step))
	root.Field(8).SetString(v.Screen)
	root.Field(9).SetInt(int64(v.ExitCode))
	readOnly, projectCode := commandChecks(v.Project)
	root.Field(10).Set(reflect.ValueOf(readOnly))
	root.Field(11).Set(reflect.ValueOf(projectCode))
	return ptr.Interface()
}

// envRoots are the top-level names of an expression environment, as buildEnv
// names them.
var envRoots = []string{"match", "vars", "env", "state", "elapsed", "idle", "fired", "step", "screen", "exit_code", "readOnly", "projectCode"}

// Expr is a compiled boolean expression (a rule's when).
type Expr struct {
	Pos
	Source  string
	program *vm.Program
}

// Eval runs the expression with the values of env.
func (x *Expr) Eval(env *Env, v Values) (bool, error) {
	out, err := expr.Run(x.program, env.Value(v))
	if err != nil {
		return false, fmt.Errorf("when %q: %w", x.Source, runError(err))
	}
	b, _ := out.(bool)
	return b, nil
}

// compile compiles src in the environment: a when expression (asBool, which
// requires a boolean result) or a template's expression, whose answer is
// typed into the program, so that reading an unset variable of env fails
// instead of typing nothing.
func (e *Env) compile(src string, asBool bool) (*vm.Program, error) {
	opts := []expr.Option{expr.Env(e.zero)}
	if asBool {
		opts = append(opts, expr.AsBool())
	} else {
		opts = append(opts, strictEnv...)
	}
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, e.explain(err)
	}
	if err := e.checkGroups(prog.Node()); err != nil {
		return nil, err
	}
	return prog, nil
}

var noFieldMessage = &lazyre.Regexp{Expr: `^type (.*) has no field (\w+)$`}

// explain turns an expr compile error into one line that speaks of the playbook's
// names rather than of Go types.
func (e *Env) explain(err error) error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		return err
	}
	msg := fe.Message
	if m := noFieldMessage.Get().FindStringSubmatch(msg); m != nil {
		owner, fields := e.describe(m[1])
		msg = fmt.Sprintf("%s has no field %q", owner, m[2])
		if s := closest(m[2], fields); s != "" {
			msg += fmt.Sprintf(", did you mean %q?", s)
		}
		switch {
		case owner == "vars":
			msg += " (declare it under vars:)"
		case owner == "match" && len(e.groups) == 0:
			msg += " (the pattern has no named groups; use {regex: '(?P<name>…)'})"
		case len(fields) > 0:
			msg += " (it has " + strings.Join(fields, ", ") + ")"
		}
	} else if hint := commandCallHint(msg); hint != "" {
		msg = strings.TrimSpace(msg) + " " + hint
	} else if name, ok := strings.CutPrefix(msg, "unknown name "); ok {
		msg = fmt.Sprintf("unknown name %q", name)
		if s := closest(name, envRoots); s != "" {
			msg += fmt.Sprintf(", did you mean %q?", s)
		} else if slices.Contains(e.names, name) {
			msg += fmt.Sprintf(", did you mean vars.%s?", name)
		}
	}
	return fmt.Errorf("%s (column %d)", msg, fe.Column+1)
}

// describe names the part of the environment a Go type stands for, with its fields.
func (e *Env) describe(typeName string) (string, []string) {
	fieldsOf := func(t reflect.Type) []string {
		var out []string
		for i := range t.NumField() {
			out = append(out, t.Field(i).Tag.Get("expr"))
		}
		return out
	}
	switch typeName {
	case e.match.String():
		return "match", fieldsOf(e.match)
	case e.vars.String():
		return "vars", fieldsOf(e.vars)
	case reflect.TypeFor[StepInfo]().String():
		return "step", fieldsOf(reflect.TypeFor[StepInfo]())
	}
	return "the value", nil
}
