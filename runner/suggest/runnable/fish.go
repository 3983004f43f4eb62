package runnable

import (
	"fmt"
	"strings"
)

// fish has no parser in Go: checkFish reads a line by fish's own rules, as
// far as they decide whether fish 3.4 or later can run it. It takes fish's
// syntax: "begin; …; end", "if/while/for/function/switch … end", "else",
// "else if", "case", "and", "or", "not", "!", "&&", "||", "|", "&|",
// "(cmd)" and "$(cmd)" substitutions (also in double quotes), $var,
// $var[1..2], $$var, {a,b} and {$var}, NAME=value before a command,
// redirections (<, >, >>, >?, 2>&1, &>, 2>|) and # comments. It refuses
// what fish cannot run, or would run as something else: bash's "then", "do",
// "done", "fi", "esac", "elif", "until", "select", "[[", "(( ))" and
// "$(( ))", "${…}", "$?", "$$", "$#", "$@", "$*", "$!", backticks,
// here-documents and here-strings, "<(…)" and ">(…)", "f() { … }",
// "{ …; }" groups (fish 4 only), NAME=value with no command, a
// substitution as the command, "end", "else" or "case" out of place, a
// block with no "end", and quotes, parentheses, braces or brackets that do
// not balance. It reads each byte once; substitutions nest at most
// maxDepth deep.

// maxDepth bounds how deep command substitutions nest.
const maxDepth = 64

// fishError is why fish cannot run a line, and where.
type fishError struct {
	at  int
	msg string
}

func (e *fishError) Error() string { return fmt.Sprintf("fish: %s (byte %d)", e.msg, e.at) }

// fishReader reads one line.
type fishReader struct {
	src   string
	pos   int
	depth int
}

// checkFish returns nil when fish can run line, else why not.
func checkFish(line string) error {
	r := &fishReader{src: line}
	return r.list(false)
}

// fail is the error at byte at.
func (r *fishReader) fail(at int, format string, args ...any) error {
	return &fishError{at: at, msg: fmt.Sprintf(format, args...)}
}

// statement is what a list knows of the statement it reads.
type statement struct {
	cmdPos    bool     // the next word is in command position
	command   bool     // the statement has its command (or a block's end)
	assigns   int      // NAME=value words before the command
	need      string   // what a command must follow: "&&", "|", "if"...
	redirect  string   // a redirection waiting for its target
	words     []string // the first three words, for "for" and "function"
	afterElse bool     // "else" began the statement: "if" goes on its block
	at        int      // where the statement starts
}

// block is a block open in a list: its keyword and where it starts.
type block struct {
	keyword string
	at      int
}

// list reads statements up to the end of the line or, inner, up to the ")"
// that closes a substitution, which it consumes.
func (r *fishReader) list(inner bool) error {
	var blocks []block
	st := statement{cmdPos: true, at: r.pos}
	for {
		r.skipBlanks()
		if r.pos >= len(r.src) {
			if inner {
				return r.fail(r.pos, "a command substitution is not closed: expecting ')'")
			}
			return r.endList(&st, blocks)
		}
		var err error
		switch c := r.src[r.pos]; {
		case c == ')':
			if !inner {
				return r.fail(r.pos, "unexpected ')' for unopened parenthesis")
			}
			if err := r.endList(&st, blocks); err != nil {
				return err
			}
			r.pos++
			return nil
		case c == '#':
			r.skipComment()
		case c == '\n' || c == ';':
			err = r.endStatement(&st, c == '\n')
			r.pos++
		case c == '&' && !strings.HasPrefix(r.src[r.pos:], "&>"), c == '|':
			err = r.operator(&st)
		case c == '<' || c == '>' || c == '&' || isDigit(c) && r.redirectAhead():
			err = r.redirection(&st)
		default:
			start := r.pos
			var sub bool
			if sub, err = r.word(); err == nil {
				err = r.statementWord(&st, &blocks, r.src[start:r.pos], sub, start)
			}
		}
		if err != nil {
			return err
		}
	}
}

// skipBlanks skips blanks and escaped newlines.
func (r *fishReader) skipBlanks() {
	for r.pos < len(r.src) {
		switch {
		case r.src[r.pos] == ' ' || r.src[r.pos] == '\t' || r.src[r.pos] == '\r':
			r.pos++
		case strings.HasPrefix(r.src[r.pos:], "\\\n"):
			r.pos += 2
		default:
			return
		}
	}
}

// skipComment skips a comment, up to the newline.
func (r *fishReader) skipComment() {
	if nl := strings.IndexByte(r.src[r.pos:], '\n'); nl >= 0 {
		r.pos += nl
		return
	}
	r.pos = len(r.src)
}

// endList ends the last statement of a list, whose blocks must all be
// ended.
func (r *fishReader) endList(st *statement, blocks []block) error {
	if err := r.endStatement(st, false); err != nil {
		return err
	}
	if len(blocks) > 0 {
		b := blocks[len(blocks)-1]
		return r.fail(b.at, "missing end to balance this %s", b.keyword)
	}
	return nil
}

// operators are what a command must follow, and which a newline may
// continue ("a &&⏎b").
var operators = map[string]bool{"&&": true, "||": true, "|": true, "&|": true}

// endStatement ends a statement at a ";", a newline, "&" or the end.
func (r *fishReader) endStatement(st *statement, newline bool) error {
	if st.redirect != "" {
		return r.fail(r.pos, "expected a file name after %s", st.redirect)
	}
	if st.need != "" {
		if newline && operators[st.need] {
			return nil // the command follows on the next line
		}
		return r.fail(r.pos, "expected a command after %s", st.need)
	}
	if st.assigns > 0 && !st.command {
		return r.fail(st.at, "NAME=value with no command: fish sets a variable with set NAME value")
	}
	if len(st.words) > 0 {
		switch st.words[0] {
		case "for":
			if len(st.words) < 3 || st.words[2] != "in" {
				return r.fail(st.at, "for needs NAME in VALUES")
			}
		case "function":
			if len(st.words) < 2 || strings.ContainsAny(st.words[1], "(){}") {
				return r.fail(st.at, "function needs a NAME: fish defines one with function NAME; …; end, not NAME() { … }")
			}
		}
	}
	*st = statement{cmdPos: true, at: r.pos + 1}
	return nil
}

// operator reads "&&", "||", "|", "&|" or a "&" that runs the statement in
// the background.
func (r *fishReader) operator(st *statement) error {
	at := r.pos
	op := r.src[r.pos : r.pos+1]
	if two := r.src[r.pos:min(r.pos+2, len(r.src))]; two == "&&" || two == "||" || two == "&|" {
		op = two
	}
	r.pos += len(op)
	if !st.command || st.need != "" || st.redirect != "" {
		return r.fail(at, "expected a command before %s", op)
	}
	if err := r.endStatement(st, false); err != nil {
		return err
	}
	if op != "&" {
		st.need = op
	}
	return nil
}

// redirectAhead reports whether the digits at r.pos are a file descriptor
// of a redirection ("2>").
func (r *fishReader) redirectAhead() bool {
	i := r.pos
	for i < len(r.src) && isDigit(r.src[i]) {
		i++
	}
	return i < len(r.src) && (r.src[i] == '<' || r.src[i] == '>')
}

// redirection reads a redirection: [N]<, [N]>, >>, >?, &>, &>>, [N]>&M,
// [N]>&-, or [N]>| (a pipe of descriptor N).
func (r *fishReader) redirection(st *statement) error {
	start := r.pos
	for r.pos < len(r.src) && isDigit(r.src[r.pos]) {
		r.pos++
	}
	if r.src[r.pos] == '&' {
		r.pos++
	}
	dir := r.src[r.pos]
	r.pos++
	rest := r.src[r.pos:]
	switch {
	case dir == '<' && strings.HasPrefix(rest, "<"):
		return r.fail(start, "here-documents and here-strings (<<) are not fish: pipe the text in (printf … |)")
	case strings.HasPrefix(rest, "("):
		return r.fail(start, "process substitution %c(…) is not fish: use (cmd | psub)", dir)
	case dir == '>' && strings.HasPrefix(rest, ">"):
		r.pos++
	}
	if r.pos < len(r.src) && r.src[r.pos] == '?' {
		r.pos++
	}
	if dir == '>' && r.pos < len(r.src) && r.src[r.pos] == '|' {
		r.pos++
		if !st.command || st.need != "" {
			return r.fail(start, "expected a command before %s", r.src[start:r.pos])
		}
		if err := r.endStatement(st, false); err != nil {
			return err
		}
		st.need = "|"
		return nil
	}
	if r.pos < len(r.src) && r.src[r.pos] == '&' {
		r.pos++
		fd := r.pos
		for r.pos < len(r.src) && (isDigit(r.src[r.pos]) || r.src[r.pos] == '-') {
			r.pos++
		}
		if r.pos == fd {
			return r.fail(start, "expected a file descriptor after %s", r.src[start:r.pos])
		}
		return nil
	}
	st.redirect = r.src[start:r.pos]
	return nil
}

// bashOnly are command words of bash's syntax that fish does not have, and
// what fish writes instead.
var bashOnly = map[string]string{
	"then":   "fish writes if COND; …; end",
	"elif":   "fish writes else if",
	"fi":     "fish ends a block with end",
	"do":     "fish writes for/while …; …; end",
	"done":   "fish ends a block with end",
	"esac":   "fish writes switch …; case …; end",
	"until":  "fish writes while not …",
	"select": "fish has no select",
	"[[":     "fish tests with test or [ … ]",
}

// statementWord takes a word of the statement: a redirection's target, an
// argument, or a word in command position, where keywords open and close
// blocks.
func (r *fishReader) statementWord(st *statement, blocks *[]block, text string, sub bool, at int) error {
	if st.redirect != "" {
		st.redirect = ""
		return nil
	}
	if len(st.words) < 3 {
		st.words = append(st.words, text)
	}
	if !st.cmdPos {
		return nil
	}
	if sub {
		return r.fail(at, "command substitutions not allowed as the command")
	}
	if strings.HasPrefix(text, "[[") {
		text = "[[" // "[[ -d x ]]" is one word: its second "[" opens a bracket
	}
	if hint, ok := bashOnly[text]; ok {
		return r.fail(at, "%s is bash syntax: %s", text, hint)
	}
	if len(text) > 1 && text[0] == '{' && isBlank(text[1]) {
		return r.fail(at, "{ …; } groups commands in fish 4 only: use begin; …; end")
	}
	top := ""
	if n := len(*blocks); n > 0 {
		top = (*blocks)[n-1].keyword
	}
	if operators[st.need] && (text == "end" || text == "else" || text == "case") {
		return r.fail(at, "expected a command after %s, found %s", st.need, text)
	}
	st.need = ""
	switch text {
	case "begin":
		*blocks = append(*blocks, block{text, at})
	case "if", "while":
		if text == "if" && st.afterElse {
			st.afterElse = false
		} else {
			*blocks = append(*blocks, block{text, at})
		}
		st.need = text
	case "for", "function", "switch":
		*blocks = append(*blocks, block{text, at})
		st.command, st.cmdPos = true, false
	case "else":
		if top != "if" {
			return r.fail(at, "else outside of an if block")
		}
		st.command, st.afterElse = true, true
	case "case":
		if top != "switch" {
			return r.fail(at, "case outside of a switch block")
		}
		st.command, st.cmdPos = true, false
	case "end":
		if top == "" {
			return r.fail(at, "end outside of a block")
		}
		*blocks = (*blocks)[:len(*blocks)-1]
		st.command, st.cmdPos = true, false
	case "not", "!", "and", "or", "time":
		// A decorator: the command follows.
	default:
		if isAssignment(text) {
			st.assigns++
			return nil
		}
		st.command, st.cmdPos = true, false
	}
	return nil
}

// isAssignment reports whether word is NAME=value.
func isAssignment(word string) bool {
	eq := strings.IndexByte(word, '=')
	if eq <= 0 || isDigit(word[0]) {
		return false
	}
	for i := range eq {
		if !isNameByte(word[i]) {
			return false
		}
	}
	return true
}

// word reads one word and reports whether it holds a command substitution.
// Braces and brackets (after a word's first byte) hold blanks and
// separators until they close.
func (r *fishReader) word() (sub bool, err error) {
	start := r.pos
	var nest []byte
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		if len(nest) == 0 && endsWord(c) {
			break
		}
		var s bool
		switch c {
		case '\\':
			if r.pos+1 >= len(r.src) {
				return sub, r.fail(r.pos, "incomplete escape sequence at the end")
			}
			r.pos += 2
		case '\'':
			err = r.singleQuoted()
		case '"':
			s, err = r.doubleQuoted()
		case '$':
			s, err = r.dollar()
		case '(':
			r.pos++
			s, err = true, r.substitution()
		case '`':
			return sub, r.fail(r.pos, "backticks are not command substitution in fish: use (cmd)")
		case '{':
			nest = append(nest, '{')
			r.pos++
		case '}':
			if len(nest) == 0 || nest[len(nest)-1] != '{' {
				return sub, r.fail(r.pos, "unexpected '}' for unopened brace expansion")
			}
			nest = nest[:len(nest)-1]
			r.pos++
		case '[':
			if r.pos > start {
				nest = append(nest, '[')
			}
			r.pos++
		case ']':
			if len(nest) > 0 && nest[len(nest)-1] == '[' {
				nest = nest[:len(nest)-1]
			}
			r.pos++
		case ')':
			return sub, r.fail(r.pos, "unexpected ')' inside a brace or bracket")
		default:
			r.pos++
		}
		if err != nil {
			return sub, err
		}
		sub = sub || s
	}
	if len(nest) > 0 {
		return sub, r.fail(start, "a brace or square bracket is not closed")
	}
	return sub, nil
}

// singleQuoted reads '…', where only \\ and \' are escapes.
func (r *fishReader) singleQuoted() error {
	start := r.pos
	for r.pos++; r.pos < len(r.src); r.pos++ {
		switch r.src[r.pos] {
		case '\\':
			if r.pos+1 < len(r.src) && (r.src[r.pos+1] == '\\' || r.src[r.pos+1] == '\'') {
				r.pos++
			}
		case '\'':
			r.pos++
			return nil
		}
	}
	return r.fail(start, "quotes are not balanced")
}

// doubleQuoted reads "…", where $var and $(cmd) expand; it reports whether
// it holds a command substitution.
func (r *fishReader) doubleQuoted() (sub bool, err error) {
	start := r.pos
	r.pos++
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case '\\':
			r.pos += 2
		case '"':
			r.pos++
			return sub, nil
		case '$':
			s, err := r.dollar()
			if err != nil {
				return sub, err
			}
			sub = sub || s
		default:
			r.pos++
		}
	}
	return sub, r.fail(start, "quotes are not balanced")
}

// dollar reads $name, $$name or $(cmd) and reports whether it was a command
// substitution.
func (r *fishReader) dollar() (bool, error) {
	at := r.pos
	r.pos++
	extra := 0
	for r.pos < len(r.src) && r.src[r.pos] == '$' {
		r.pos++
		extra++
	}
	if r.pos >= len(r.src) {
		return false, r.fail(at, "expected a variable name after this $")
	}
	switch c := r.src[r.pos]; {
	case isNameByte(c):
		for r.pos < len(r.src) && isNameByte(r.src[r.pos]) {
			r.pos++
		}
		return false, nil
	case c == '(' && extra == 0:
		r.pos++
		return true, r.substitution()
	case c == '{':
		return false, r.fail(at, "${…} is bash: fish writes $name or {$name}")
	case extra > 0:
		return false, r.fail(at, "$$ is not the pid in fish: use $fish_pid")
	case c == '?':
		return false, r.fail(at, "$? is not the exit status in fish: use $status")
	case c == '#' || c == '@' || c == '*':
		return false, r.fail(at, "$%c is not supported in fish: use $argv (or count $argv)", c)
	case c == '!':
		return false, r.fail(at, "$! is not supported in fish: use $last_pid")
	default:
		return false, r.fail(at, "expected a variable name after this $")
	}
}

// substitution reads the commands of a substitution after its "(", and its
// ")".
func (r *fishReader) substitution() error {
	if r.depth >= maxDepth {
		return r.fail(r.pos, "command substitutions nested more than %d deep", maxDepth)
	}
	r.depth++
	defer func() { r.depth-- }()
	return r.list(true)
}

// endsWord reports whether c ends a word outside braces and brackets.
func endsWord(c byte) bool {
	return isBlank(c) || strings.IndexByte("\n;&|<>)", c) >= 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isNameByte reports whether c may be part of a variable's name: ASCII
// letters, digits, "_", and any byte of a non-ASCII letter.
func isNameByte(c byte) bool {
	return c == '_' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
