package playbooks

import (
	"reflect"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"

	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/safecmd"
)

// commandCheckType is the type of readOnly and projectCode in an expression:
// a command line in, whether it may be approved out.
var commandCheckType = reflect.TypeFor[func(string) bool]()

// commandChecks returns readOnly(cmd) and projectCode(cmd) of an expression
// environment, which judge a command line in project (safecmd.ReadOnly and
// safecmd.ProjectCode).
func commandChecks(project string) (readOnly, projectCode func(string) bool) {
	readOnly = func(cmd string) bool { return safecmd.ReadOnly(cmd, project).OK }
	projectCode = func(cmd string) bool { return safecmd.ProjectCode(cmd, project).OK }
	return readOnly, projectCode
}

// commandFuncs are the names of the command checks of an expression.
var commandFuncs = map[string]bool{"readOnly": true, "projectCode": true}

// commandCallHint adds to expr's message about a call of readOnly or
// projectCode with the wrong arguments how to call it, or returns "".
func commandCallHint(msg string) string {
	for name := range commandFuncs {
		if strings.HasSuffix(msg, "to call "+name) || strings.Contains(msg, "to call "+name+" ") {
			return "(" + name + " takes the command line as one string)"
		}
	}
	return ""
}

// checkConstantCommands reports each call of readOnly or projectCode in the
// when: at p (what) that is given a constant command: a check that cannot
// fail, or cannot pass, whatever the program shows.
func (d *decoder) checkConstantCommands(p Pos, what string, prog *vm.Program) {
	for _, c := range constantCommandCalls(prog.Node()) {
		d.report(p, diag.Warning, "constant-command",
			"give it the command the program shows, e.g. readOnly(match.cmd) with a group (?P<cmd>…) in the pattern",
			"%s: %s is given a constant command (column %d), so it gives the same answer whatever the program shows",
			what, c.Callee.(*ast.IdentifierNode).Value, c.Location().From+1)
	}
}

// isCommandCallError reports whether err is about a call of readOnly or
// projectCode with the wrong arguments.
func isCommandCallError(err error) bool {
	return strings.Contains(err.Error(), " takes the command line as one string)")
}

// constantCommandCalls returns the calls of readOnly and projectCode in the
// expression root whose argument reads nothing of the run (readOnly("ls")):
// their answer is the same whatever the program shows.
func constantCommandCalls(root ast.Node) []*ast.CallNode {
	var out []*ast.CallNode
	ast.Walk(&root, visitorFunc(func(node *ast.Node) {
		c, ok := (*node).(*ast.CallNode)
		if !ok || len(c.Arguments) != 1 {
			return
		}
		if id, ok := c.Callee.(*ast.IdentifierNode); ok && commandFuncs[id.Value] && !readsAName(c.Arguments[0]) {
			out = append(out, c)
		}
	}))
	return out
}

// readsAName reports whether the expression n reads any name of the
// environment (match, vars, env …) or a value a predicate or a let gives.
func readsAName(n ast.Node) bool {
	reads := false
	ast.Walk(&n, visitorFunc(func(node *ast.Node) {
		switch (*node).(type) {
		case *ast.IdentifierNode, *ast.PointerNode, *ast.VariableDeclaratorNode:
			reads = true
		}
	}))
	return reads
}

// visitorFunc is an ast.Visitor made of a function.
type visitorFunc func(node *ast.Node)

// Visit implements ast.Visitor.
func (f visitorFunc) Visit(node *ast.Node) { f(node) }
