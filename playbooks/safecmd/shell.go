package safecmd

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A word is one argument of a command after quote removal.
type word struct {
	value string
	// plain is set when the word was written with no quote and no escape.
	plain bool
	// glob is set when the word has an unquoted * or ?, which the shell
	// expands to the names of files; leadingGlob when its first character is
	// one, so that it can expand to a name that starts with -.
	glob, leadingGlob bool
}

// splitLine parses line as bash does into its simple commands, each a list of
// words, or says why it is left to a person: it is not a list of simple
// commands joined by |, &&, || and ;, or a word is more than quoted text.
func splitLine(line string) ([][]word, string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, "the shell cannot parse it"
	}
	if len(f.Stmts) == 0 {
		return nil, "no command"
	}
	var cmds [][]word
	for _, st := range f.Stmts {
		var why string
		if cmds, why = appendStmt(cmds, st); why != "" {
			return nil, why
		}
	}
	return cmds, ""
}

// appendStmt appends the simple commands of st to cmds.
func appendStmt(cmds [][]word, st *syntax.Stmt) ([][]word, string) {
	switch {
	case len(st.Redirs) > 0:
		return nil, redirection(st.Redirs[0])
	case st.Negated:
		return nil, "a command negated with !"
	case st.Background, st.Coprocess, st.Disown:
		return nil, "a command run in the background (&)"
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return nil, "an assignment (NAME=value) sets a variable of the command"
		}
		words := make([]word, 0, len(c.Args))
		for _, w := range c.Args {
			unq, why := unquote(w)
			if why != "" {
				return nil, why
			}
			words = append(words, unq)
		}
		return append(cmds, words), ""
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt && c.Op != syntax.Pipe {
			return nil, fmt.Sprintf("the operator %s", c.Op)
		}
		cmds, why := appendStmt(cmds, c.X)
		if why != "" {
			return nil, why
		}
		return appendStmt(cmds, c.Y)
	}
	return nil, construct(st.Cmd)
}

// redirection says why a redirection is left to a person.
func redirection(r *syntax.Redirect) string {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return "a here-document (<<)"
	case syntax.WordHdoc:
		return "a here-string (<<<)"
	case syntax.RdrIn:
		return "a redirection (<)"
	}
	return fmt.Sprintf("a redirection (%s) writes to a file", r.Op)
}

// construct names a shell construct that is not a simple command.
func construct(c syntax.Command) string {
	switch c.(type) {
	case *syntax.Subshell:
		return "a subshell ( )"
	case *syntax.Block:
		return "a block { }"
	case *syntax.FuncDecl:
		return "a function definition"
	case *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause:
		return "a control structure (if, while, for, case)"
	case *syntax.ArithmCmd, *syntax.LetClause:
		return "arithmetic ((( )), let)"
	case *syntax.TestClause:
		return "a test [[ ]]"
	case *syntax.DeclClause:
		return "a declaration (export, declare, local, readonly)"
	case *syntax.TimeClause:
		return "time"
	case *syntax.CoprocClause:
		return "a coprocess"
	}
	return "a shell construct that is not a simple command"
}

// unquote removes the quotes of w, or says why it is more than quoted text:
// an expansion of a variable, a command, arithmetic or braces, $'…' or $"…"
// quoting, a ~ that names a home folder, a [ ] or extended glob.
func unquote(w *syntax.Word) (word, string) {
	out := word{plain: true}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if why := unquoteLit(&b, &out, p.Value); why != "" {
				return word{}, why
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return word{}, "$'…' quoting"
			}
			out.plain = false
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{}, `$"…" quoting`
			}
			out.plain = false
			for _, in := range p.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return word{}, partReason(in)
				}
				unescapeDouble(&b, lit.Value)
			}
		default:
			return word{}, partReason(part)
		}
	}
	out.value = b.String()
	return out, ""
}

// unquoteLit appends the unquoted text s to b, removing its backslashes, and
// notes its globs in w.
func unquoteLit(b *strings.Builder, w *word, s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			if i+1 == len(s) {
				return "a backslash at the end of a word"
			}
			w.plain = false
			i++
			b.WriteByte(s[i])
			continue
		}
		switch c {
		case '*', '?':
			w.glob = true
			w.leadingGlob = w.leadingGlob || b.Len() == 0
		case '[':
			return "a [ ] glob"
		case '{', '}':
			return "braces { }, which the shell may expand"
		case '$', '`':
			return "a $ or ` the shell may expand"
		case '~':
			// Only a ~ right after a letter or digit (HEAD~2) names no
			// home folder: bash expands one at the start of a word and
			// after = or :, zsh after =.
			if !endsAlnum(b) {
				return "~ names a home folder"
			}
		case '=':
			if b.Len() == 0 {
				return "a word that starts with =, which zsh expands to a program's path"
			}
		case '^':
			if b.Len() == 0 {
				return "a word that starts with ^, a glob in zsh"
			}
		}
		b.WriteByte(c)
	}
	return ""
}

// endsAlnum reports whether the last byte of b is an ASCII letter or digit.
func endsAlnum(b *strings.Builder) bool {
	s := b.String()
	if s == "" {
		return false
	}
	c := s[len(s)-1]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// unescapeDouble appends the text s of double quotes to b: a backslash
// quotes $, `, " and \ there, and is itself kept before any other character.
func unescapeDouble(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
}

// partReason names a part of a word that is more than text.
func partReason(p syntax.WordPart) string {
	switch p.(type) {
	case *syntax.ParamExp:
		return "a parameter expansion ($NAME, ${…})"
	case *syntax.CmdSubst:
		return "a command substitution ($( ) or backticks) runs a command"
	case *syntax.ArithmExp:
		return "an arithmetic expansion $(( ))"
	case *syntax.ProcSubst:
		return "a process substitution (<( ), >( )) runs a command"
	case *syntax.ExtGlob:
		return "an extended glob"
	}
	return "a word the shell expands"
}
