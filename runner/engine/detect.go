package engine

import (
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/lazyre"
)

const (
	numberedLineExpr = `^\s*([❯›●>]\s*)?\d{1,2}[.)]\s+\S`
	markedLineExpr   = `^\s*([❯›●])\s+\S`
)

// The generic prompt detector: what a line a program waits at looks like.
var (
	// questionLine is a line that ends the way a question does: a choice like
	// [y/n] or (yes/no), a mark like "?" or ":", or a default in brackets after
	// a word ("Path [/usr/local]", "Continue [Y]"), not glued to a word
	// ("answer=[y]" is output).
	questionLine = &lazyre.Regexp{Expr: `(?i)(\[[yn](/[yn])+\]|\((y/n|yes/no)\)|(^|\s)\[[^\]\n]{1,40}\]\s*[?:]?|[?:>$#])\s*$`}
	// defaultLine is a question that offers its default in parentheses, as npm
	// init, Node's readline and Inquirer ask: "package name: (demo)",
	// "Is this OK? (yes)", "? Project name (demo)". The parentheses follow a
	// ":" or "?", or the line starts with Inquirer's "? ".
	defaultLine = &lazyre.Regexp{Expr: `([?:]\s+|^\s*\?\s.*\s)\([^()\n]{0,60}\)\s*$`}
	// debuggerLine is a prompt that is one word in parentheses: (Pdb), (gdb).
	debuggerLine = &lazyre.Regexp{Expr: `^\s*\([A-Za-z][\w-]{0,15}\)\s*$`}
	// progressMark is bracketed text that counts rather than asks: [3/10], [50%], [====>  ].
	progressMark = &lazyre.Regexp{Expr: `\[[\d\s%/.=#>-]*\]\s*$`}
	// numberedLine is an entry of a numbered menu, marked or not: "1. Yes",
	// "❯ 2) No"; markedLine is the marked entry of a menu without numbers:
	// "❯ Yes", "● React". menuLine is either.
	numberedLine = &lazyre.Regexp{Expr: numberedLineExpr}
	markedLine   = &lazyre.Regexp{Expr: markedLineExpr}
	menuLine     = &lazyre.Regexp{Expr: numberedLineExpr + `|` + markedLineExpr}
	// busyLine is how coding agents say they are working: Claude Code and Codex
	// CLI ("esc to interrupt"), Gemini CLI ("(esc to cancel, 12s)").
	busyLine = &lazyre.Regexp{Expr: `(?i)\besc to interrupt\b|\(esc to cancel, [^)]*\d+s\)`}
)

// busy reports whether the last lines of text say the program is working: then it
// waits at no prompt and is not idle, whatever else the screen shows.
func busy(text []byte) bool {
	for _, l := range lastLines(text, 12) {
		if busyLine.Get().MatchString(l) {
			return true
		}
	}
	return false
}

// lastLines returns up to n non-blank lines at the end of text, last first.
// Lines of a dialog drawn in a box are read without the box: its sides are
// dropped and its top and bottom edges count as blank.
func lastLines(text []byte, n int) []string {
	var out []string
	s := string(text)
	for len(out) < n && s != "" {
		i := strings.LastIndexByte(s, '\n')
		if line := screenLine(s[i+1:]); line != "" {
			out = append(out, line)
		}
		if i < 0 {
			break
		}
		s = s[:i]
	}
	return out
}

// screenLine is a line of the screen as the detector reads it: its text
// out of any frame, without trailing blanks, or "" for a blank line or the
// edge of a box.
func screenLine(raw string) string {
	line := strings.TrimRight(unframe(raw), " \t\u00a0")
	if isBoxEdge(line) {
		return ""
	}
	return line
}

// isBoxEdge reports whether a line is drawn only with box-drawing characters
// and spaces, like the top or bottom edge of a box.
func isBoxEdge(line string) bool {
	for _, r := range line {
		if r != ' ' && (r < '\u2500' || r > '\u257f') {
			return false
		}
	}
	return true
}

// detectPrompt returns the question the program seems to wait at, or "".
func detectPrompt(window []byte) string {
	lines := lastLines(window, 12)
	if len(lines) == 0 || busy(window) {
		return ""
	}
	if isQuestion(lines[0]) || showsMenu(window) {
		return lines[0]
	}
	return ""
}

// showsMenu reports whether the last 12 non-blank lines of text show a menu:
// an entry with a number, radio buttons side by side, or a marked entry with
// another entry of its list right above or below it. A marked line alone is no menu: coding agents mark
// the lines of their transcript so, the user's messages ("❯ run the tests")
// and their own replies ("● Done."). Lines are read as lastLines reads them.
func showsMenu(text []byte) bool {
	rows := strings.Split(string(text), "\n")
	for i, r := range rows {
		rows[i] = screenLine(r)
	}
	seen := 0
	for i := len(rows) - 1; i >= 0 && seen < 12; i-- {
		l := rows[i]
		if l == "" {
			continue
		}
		seen++
		if numberedLine.Get().MatchString(l) || sideBySideOptions(l) != nil {
			return true
		}
		if markedLine.Get().MatchString(l) && (inList(rows, i-1, l) || inList(rows, i+1, l)) {
			return true
		}
	}
	return false
}

// inList reports whether rows[j] is another entry of the menu whose marked
// entry is marked: an entry with a number or a mark, a radio button, or,
// where the mark is not a radio button's (●), a line whose text starts in
// the column of the marked entry's label.
func inList(rows []string, j int, marked string) bool {
	if j < 0 || j >= len(rows) || rows[j] == "" {
		return false
	}
	r := rows[j]
	if menuLine.Get().MatchString(r) || radioOption.Get().MatchString(r) {
		return true
	}
	m := markedOption.Get().FindStringSubmatchIndex(marked)
	if m == nil || marked[m[2]:m[3]] == "●" {
		return false
	}
	text := strings.TrimLeft(r, " ")
	return utf8.RuneCountInString(r[:len(r)-len(text)]) == utf8.RuneCountInString(marked[:m[4]])
}

// isQuestion reports whether a line reads as a question a program waits at.
func isQuestion(line string) bool {
	if defaultLine.Get().MatchString(line) || debuggerLine.Get().MatchString(line) {
		return true
	}
	return questionLine.Get().MatchString(line) && !progressMark.Get().MatchString(line)
}
