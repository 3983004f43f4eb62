package normalize

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Quote writes value as one word the shell ("bash", "zsh", "fish"; "" is
// bash) reads back as value: as it is when it holds only characters no
// shell treats specially, else quoted. A value no quoting of the shell can
// hold (a NUL byte) gives false.
func Quote(shell, value string) (string, bool) {
	if value != "" && strings.IndexFunc(value, func(r rune) bool { return !plain(r) }) < 0 && value[0] != '~' && value[0] != '=' {
		return value, true
	}
	if strings.IndexByte(value, 0) >= 0 {
		return "", false
	}
	if shell == "fish" {
		// In fish's single quotes a backslash and a quote are escaped
		// with a backslash, and nothing else is special.
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(value) + "'", true
	}
	q, err := syntax.Quote(value, syntax.LangBash)
	return q, err == nil
}

// plain reports whether r is read as itself in a word by every shell.
func plain(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,", r)
}
