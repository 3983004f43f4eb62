package normalize

import (
	"strings"

	"github.com/google/shlex"
)

// splitWords understands a line the bash parser refused: split into words
// by shell-word rules (with an open quote closed at the end of the line, and
// at blanks when even that fails), cut into commands at the words "&&",
// "||", "|" and ";", each command by its program's rules.
func splitWords(line string) Command {
	var t template
	var run []word
	flush := func() {
		if len(run) > 0 {
			t.command(run)
			run = run[:0]
		}
	}
	for _, value := range shellWords(line) {
		switch value {
		case "&&", "||", "|", ";", "&":
			flush()
			t.raw(value)
		default:
			run = append(run, quotedWord(value))
		}
	}
	flush()
	return t.result()
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
