package normalize

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parseBash understands line with the bash parser; ok is false when bash
// would refuse it.
func parseBash(line string) (Command, bool) {
	parser := syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash))
	file, err := parser.Parse(strings.NewReader(line), "")
	if err != nil {
		return Command{}, false
	}
	r := renderer{line: line}
	for i, stmt := range file.Stmts {
		// "&" ends a statement as ";" does: "a & b", never "a &; b",
		// which no shell of bash's kind reads.
		if len(r.pieces) > 0 && !file.Stmts[i-1].Background {
			r.raw(";")
		}
		r.stmt(stmt)
	}
	return r.result(), true
}

// renderer builds the template of a parsed line.
type renderer struct {
	template
	line string
}

// text is the source text of node, as typed.
func (r *renderer) text(node syntax.Node) string {
	start, end := int(node.Pos().Offset()), int(node.End().Offset())
	if start < 0 || end > len(r.line) || start > end {
		return ""
	}
	return r.line[start:end]
}

// word makes a word of a parsed word: its text, and its value when it holds
// no expansion.
func (r *renderer) word(w *syntax.Word) word {
	value, literal := literalValue(w)
	return word{text: r.text(w), value: value, literal: literal}
}

// literalValue is the value of w after quote removal, when w holds only
// plain text, single quotes and double quotes around plain text.
func literalValue(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok || p.Dollar {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes of an unquoted word: "a\ b" is "a b".
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// stmt adds a statement: "!", its command, its redirections, and "&".
func (r *renderer) stmt(s *syntax.Stmt) {
	if s.Negated {
		r.raw("!")
	}
	if s.Cmd != nil {
		r.cmd(s.Cmd)
	}
	for _, redirect := range s.Redirs {
		r.redirect(redirect)
	}
	if s.Background {
		r.raw("&")
	}
}

// cmd adds a command: a simple command by the rules of its program, a list
// or pipeline part by part, and any other construct (a loop, a subshell, a
// function) by the default rule for each of its words, printed on one line.
func (r *renderer) cmd(cmd syntax.Command) {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		for _, assign := range c.Assigns {
			r.assign(assign)
		}
		words := make([]word, len(c.Args))
		for i, w := range c.Args {
			words[i] = r.word(w)
		}
		r.command(words)
	case *syntax.BinaryCmd:
		r.stmt(c.X)
		r.raw(c.Op.String())
		r.stmt(c.Y)
	case *syntax.TimeClause:
		r.raw("time")
		if c.PosixFormat {
			r.raw("-p")
		}
		if c.Stmt != nil {
			r.stmt(c.Stmt)
		}
	default:
		r.construct(c)
	}
}

// assign adds NAME=value with the value judged alone; an array or an
// indexed assignment is kept as typed.
func (r *renderer) assign(a *syntax.Assign) {
	if a.Name == nil || a.Value == nil || a.Index != nil || a.Array != nil {
		r.keep(word{text: r.text(a)})
		return
	}
	op := "="
	if a.Append {
		op = "+="
	}
	value := r.word(a.Value)
	if !value.literal {
		r.keep(word{text: a.Name.Value + op + value.text})
		return
	}
	r.flagValue(a.Name.Value+op, value, Slot(value.value))
}

// redirect adds a redirection: a file by the default rule ("> <path>"), a
// descriptor kept ("2>&1"), a here-document as its operator and delimiter
// only: its body is content, not part of the command.
func (r *renderer) redirect(rd *syntax.Redirect) {
	prefix := ""
	if rd.N != nil {
		prefix = rd.N.Value
	}
	op := prefix + rd.Op.String()
	switch rd.Op {
	case syntax.DplIn, syntax.DplOut, syntax.Hdoc, syntax.DashHdoc:
		if text := r.text(rd.Word); !holdsSlot(text) {
			r.raw(op + text)
			return
		}
		r.raw(op)
		r.keep(r.word(rd.Word))
	default:
		r.raw(op)
		r.auto(r.word(rd.Word))
	}
}

// construct adds a compound command: each literal word judged by Slot (in
// the order of the line), then the command printed on one line.
func (r *renderer) construct(cmd syntax.Command) {
	syntax.Walk(cmd, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.Redirect:
			if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
				n.Hdoc = nil
			}
		case *syntax.Word:
			r.slotWord(n)
			return false
		case *syntax.CallExpr:
			r.tools = append(r.tools, callTool(n))
		case *syntax.DeclClause:
			r.tools = append(r.tools, n.Variant.Value)
		}
		return true
	})
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, cmd); err != nil {
		r.keep(word{text: r.text(cmd)})
		return
	}
	r.raw(strings.Join(strings.Fields(b.String()), " "))
}

// slotWord replaces a word with its slot, and adds it to the args: a literal
// word Slot puts in a slot, and any word typed with a slot's marker.
func (r *renderer) slotWord(w *syntax.Word) {
	wd := r.word(w)
	s := ""
	switch {
	case holdsSlot(wd.text):
		s = SlotMsg
	case wd.literal && !kept[wd.value]:
		s = Slot(wd.value)
	}
	if s == "" {
		return
	}
	r.args = append(r.args, wd.text)
	w.Parts = []syntax.WordPart{&syntax.Lit{Value: s}}
}

// callTool is the program a simple command inside a construct runs, by its
// base name, past wrappers; "" when it is not a plain word.
func callTool(c *syntax.CallExpr) string {
	for _, w := range c.Args {
		value, ok := literalValue(w)
		if !ok {
			return ""
		}
		if _, wrapper := wrappers[value]; !wrapper && !strings.HasPrefix(value, "-") {
			return toolName(value)
		}
	}
	return ""
}
