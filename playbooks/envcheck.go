package playbooks

import (
	"errors"
	"fmt"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"

	"github.com/clai-sh/clai/playbooks/pattern"
)

// requireEnv names the function a template's env.NAME becomes; it is not an
// identifier an expression can spell, so only that rewrite calls it.
const requireEnv = "env·required"

// strictEnv makes a template's reads of env.NAME and env["NAME"] fail when
// the variable is not set, instead of giving "": an answer built from it
// would be typed into the program without it. `"NAME" in env` tests for one,
// and env?.NAME still reads an unset variable as "".
var strictEnv = []expr.Option{
	expr.Function(requireEnv, lookupEnv, new(func(map[string]string, string) string)),
	expr.Patch(envReads{}),
}

func lookupEnv(params ...any) (any, error) {
	environ, _ := params[0].(map[string]string)
	name, _ := params[1].(string)
	if v, ok := environ[name]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("the environment variable %s is not set", name)
}

// envReads rewrites env.NAME and env[NAME] into calls of requireEnv.
type envReads struct{}

// Visit implements ast.Visitor.
func (envReads) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok || m.Optional || m.Method {
		return
	}
	if id, ok := m.Node.(*ast.IdentifierNode); ok && id.Value == "env" {
		ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: requireEnv}, Arguments: []ast.Node{id, m.Property}})
	}
}

// maxGroups returns how many match.groups the matcher's longest match can
// have, the whole match included, or -1 when a pattern's is not known.
func maxGroups(m *pattern.Matcher) int {
	n := 0
	for _, p := range m.Patterns {
		switch p.Kind {
		case pattern.Regex:
			n = max(n, p.Regexp.NumSubexp()+1)
		case pattern.Literal:
			n = max(n, 1)
		default:
			return -1
		}
	}
	return n
}

// checkGroups reports a match.groups[N] with a constant N past the last group
// of every pattern of the place: that read fails whatever matched.
func (e *Env) checkGroups(root ast.Node) error {
	if e.maxGroups < 0 {
		return nil
	}
	var err error
	ast.Walk(&root, groupIndexes(func(n *ast.MemberNode, i int) {
		if err != nil || (i < e.maxGroups && i >= -e.maxGroups) {
			return
		}
		have := "nothing is matched here, so match.groups is empty"
		if e.maxGroups > 0 {
			have = fmt.Sprintf("the longest match here has match.groups[0] to match.groups[%d]", e.maxGroups-1)
		}
		err = fmt.Errorf("match.groups[%d] is past the last group: %s (column %d)", i, have, n.Location().From+1)
	}))
	return err
}

// groupIndexes is an ast.Visitor that calls itself for each match.groups[N]
// with a constant N.
type groupIndexes func(n *ast.MemberNode, i int)

// Visit implements ast.Visitor.
func (f groupIndexes) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok {
		return
	}
	idx, ok := m.Property.(*ast.IntegerNode)
	if !ok {
		return
	}
	groups, ok := m.Node.(*ast.MemberNode)
	if !ok {
		return
	}
	id, ok := groups.Node.(*ast.IdentifierNode)
	if prop, isStr := groups.Property.(*ast.StringNode); ok && isStr && id.Value == "match" && prop.Value == "groups" {
		f(m, idx.Value)
	}
}

// runError makes the error of an expression's run one line: its message,
// without the source and the caret expr adds below it (the caller names the
// expression).
func runError(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		return errors.New(fe.Message)
	}
	return err
}
