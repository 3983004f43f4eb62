package secretfilter

import "strings"

// splitCommands splits line into simple commands, each a list of words, as
// bash, zsh and fish would split it closely enough to find secrets: blanks
// separate words; ;, &, |, (, ), newlines end a command; < and > separate
// words; '…', "…" and $'…' quote, and a backslash escapes the next
// character. A word's quotes are removed. It never fails: an unended quote
// runs to the end of the line.
func splitCommands(line string) [][]string {
	l := lexer{}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			i++
			if line[i] != '\n' {
				l.add(line[i])
			}
		case c == '\'':
			i = l.quoted(line, i+1, '\'', false)
		case c == '"':
			i = l.quoted(line, i+1, '"', true)
		case c == '$' && i+1 < len(line) && line[i+1] == '\'':
			i = l.quoted(line, i+2, '\'', true)
		case c == ' ' || c == '\t' || c == '<' || c == '>':
			l.endWord()
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '\n' || c == '`':
			l.endCommand()
		default:
			l.add(c)
		}
	}
	l.endCommand()
	return l.cmds
}

// lexer is the state of splitCommands.
type lexer struct {
	cmds  [][]string
	words []string
	word  strings.Builder
	// inWord tells that a word was begun, even an empty one ('').
	inWord bool
}

func (l *lexer) add(c byte) {
	l.word.WriteByte(c)
	l.inWord = true
}

// quoted reads a quoted string from line[i] to its closing quote q, and
// returns the index of that quote. escapes tells that a backslash escapes
// the next character in it.
func (l *lexer) quoted(line string, i int, q byte, escapes bool) int {
	l.inWord = true
	for ; i < len(line); i++ {
		c := line[i]
		switch {
		case c == q:
			return i
		case escapes && c == '\\' && i+1 < len(line):
			i++
			l.word.WriteByte(line[i])
		default:
			l.word.WriteByte(c)
		}
	}
	return i
}

func (l *lexer) endWord() {
	if l.inWord {
		l.words = append(l.words, l.word.String())
	}
	l.word.Reset()
	l.inWord = false
}

func (l *lexer) endCommand() {
	l.endWord()
	if len(l.words) > 0 {
		l.cmds = append(l.cmds, l.words)
	}
	l.words = nil
}
