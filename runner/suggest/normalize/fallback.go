package normalize

import (
	"strings"

	"github.com/google/shlex"
)

// splitWords understands a line the bash parser refused, most often another
// shell's syntax (fish's "for x in a; …; end" over lines, "(date)", zsh's
// glob qualifiers). When its quotes and parentheses balance, each word is
// kept as typed (quotes, $var and substitutions included), so the template
// stays a line of the shell it came from; newlines and ";" separate
// commands, and the words "&&", "||", "|", "&|" and "&" cut them. Else it is
// split into words by shell-word rules (with an open quote closed at the end
// of the line, and at blanks when even that fails), each word quoted anew.
// Each command goes by its program's rules.
func splitWords(line string) Command {
	toks, ok := typedWords(line)
	if !ok {
		toks = nil
		for _, value := range shellWords(line) {
			if isOperator(value) {
				toks = append(toks, token{op: value})
				continue
			}
			toks = append(toks, token{w: quotedWord(value)})
		}
	}
	var t template
	var run []word
	flush := func() {
		if len(run) > 0 {
			t.command(run)
			run = run[:0]
		}
	}
	separated := false
	for _, tok := range toks {
		switch {
		case tok.op == ";":
			flush()
			separated = true
		case tok.op != "":
			flush()
			t.raw(tok.op)
			separated = false
		default:
			if separated && len(t.pieces) > 0 && !isOperator(t.pieces[len(t.pieces)-1]) {
				t.raw(";")
			}
			separated = false
			run = append(run, tok.w)
		}
	}
	flush()
	return t.result()
}

// isOperator reports whether word cuts a line into commands: a ";" or a
// newline only where a command follows, so "a &; b" and "a |⏎b" keep one.
func isOperator(word string) bool {
	switch word {
	case "&&", "||", "|", "&|", ";", "&":
		return true
	}
	return false
}

// token is a word or an operator of a line.
type token struct {
	op string
	w  word
}

// maxNesting bounds how deep typedWords follows quotes in substitutions in
// quotes; a line nested deeper is split by shellWords.
const maxNesting = 64

// typedWords splits line into words as typed and operators; ok is false
// when a quote, a parenthesis or a backtick is left open, or an escape ends
// the line. A newline and an unquoted ";" (outside parentheses) are ";",
// an unquoted # that starts a word starts a comment, and the words "&&",
// "||", "|", "&|" and "&" are operators. A word's value is its text with
// quotes and escapes removed; it is literal when it holds no $, (…) or
// backtick outside single quotes.
func typedWords(line string) ([]token, bool) {
	var toks []token
	var text, value strings.Builder
	literal, inWord := true, false
	end := func() {
		if !inWord {
			return
		}
		t := text.String()
		if isOperator(t) {
			toks = append(toks, token{op: t})
		} else {
			toks = append(toks, token{w: word{text: t, value: value.String(), literal: literal}})
		}
		text.Reset()
		value.Reset()
		literal, inWord = true, false
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			end()
			i++
			continue
		case c == '\n' || c == ';':
			end()
			toks = append(toks, token{op: ";"})
			i++
			continue
		case c == '#' && !inWord:
			nl := strings.IndexByte(line[i:], '\n')
			if nl < 0 {
				i = len(line)
			} else {
				i += nl
			}
			continue
		}
		inWord = true
		next := -1
		switch c {
		case '\\':
			if i+1 >= len(line) {
				return nil, false
			}
			if line[i+1] != '\n' { // an escaped newline joins the lines
				text.WriteString(line[i : i+2])
				value.WriteByte(line[i+1])
			}
			i += 2
			continue
		case '\'':
			next = skipSingle(line, i)
			if next > 0 {
				value.WriteString(unescapeSingle(line[i+1 : next-1]))
			}
		case '"':
			next = skipDouble(line, i, 0)
			if next > 0 {
				inner := line[i+1 : next-1]
				literal = literal && !strings.ContainsAny(inner, "$`")
				value.WriteString(unescapeDouble(inner))
			}
		case '(', '`', '$':
			literal = false
			switch {
			case c == '(':
				next = skipParen(line, i, 0)
			case c == '`':
				next = skipBacktick(line, i)
			case strings.HasPrefix(line[i:], "$("):
				next = skipParen(line, i+1, 0)
			default:
				next = i + 1
			}
		default:
			value.WriteByte(c)
			next = i + 1
		}
		if next < 0 {
			return nil, false
		}
		text.WriteString(line[i:next])
		i = next
	}
	end()
	return toks, true
}

// skipSingle returns the index after the single-quoted string at i, or -1.
// A backslash escapes a quote or a backslash, as in fish (a line bash
// refused is most often fish's).
func skipSingle(line string, i int) int {
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			if j+1 < len(line) && (line[j+1] == '\'' || line[j+1] == '\\') {
				j++
			}
		case '\'':
			return j + 1
		}
	}
	return -1
}

// skipDouble returns the index after the double-quoted string at i, or -1;
// depth is how deep it is nested in substitutions.
func skipDouble(line string, i, depth int) int {
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '`':
			if j = skipBacktick(line, j); j < 0 {
				return -1
			}
			j--
		case '$':
			if strings.HasPrefix(line[j:], "$(") {
				if j = skipParen(line, j+1, depth+1); j < 0 {
					return -1
				}
				j--
			}
		}
	}
	return -1
}

// skipParen returns the index after the parenthesis opened at i and what it
// holds, or -1; depth is how deep it is nested.
func skipParen(line string, i, depth int) int {
	if depth > maxNesting {
		return -1
	}
	open := 0
	for j := i; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '(':
			open++
		case ')':
			if open--; open == 0 {
				return j + 1
			}
		case '\'':
			if j = skipSingle(line, j); j < 0 {
				return -1
			}
			j--
		case '"':
			if j = skipDouble(line, j, depth+1); j < 0 {
				return -1
			}
			j--
		case '`':
			if j = skipBacktick(line, j); j < 0 {
				return -1
			}
			j--
		}
	}
	return -1
}

// skipBacktick returns the index after the backticks opened at i, or -1.
func skipBacktick(line string, i int) int {
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '`':
			return j + 1
		}
	}
	return -1
}

// unescapeSingle is the value of what single quotes hold.
func unescapeSingle(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\'`, `'`).Replace(s)
}

// unescapeDouble is the value of what double quotes hold, when it holds no
// expansion.
func unescapeDouble(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\$`, `$`, "\\`", "`", "\\\n", "").Replace(s)
}

// shellWords splits line into words: by shell-word rules, else with a
// closing double or single quote added, else at blanks.
func shellWords(line string) []string {
	for _, closing := range []string{"", `"`, `'`} {
		if words, err := shlex.Split(line + closing); err == nil {
			return words
		}
	}
	return strings.Fields(line)
}
