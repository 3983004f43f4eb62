package score

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// defaultIgnore is the stop-list of commands neither learnt nor suggested:
// they tend the terminal or the session, not the work, so they follow
// anything and predict nothing. clear and reset wipe the screen, exit and
// logout end the shell, history looks back. ls, cd and git status stay:
// they are habits, the step a person takes next, and worth suggesting.
var defaultIgnore = []string{"clear", "reset", "exit", "logout", "history"}

// DefaultIgnore returns the stop-list of commands neither learnt nor suggested:
// they tend the terminal or the session, not the work, so they follow
// anything and predict nothing. clear and reset wipe the screen, exit and
// logout end the shell, history looks back. ls, cd and git status stay:
// they are habits, the step a person takes next, and worth suggesting. A new copy each call: callers may change it.
func DefaultIgnore() []string { return slices.Clone(defaultIgnore) }

// Limits of a stop-list, so that a config file cannot make each command
// cost much.
const (
	MaxIgnore      = 256
	MaxIgnoreBytes = 256
)

// CheckIgnore tells what is wrong with a stop-list, or nil: at most
// MaxIgnore entries, each a command or the start of one (its first words),
// not empty, one line, valid UTF-8, at most MaxIgnoreBytes bytes.
func CheckIgnore(entries []string) error {
	if len(entries) > MaxIgnore {
		return fmt.Errorf("%d commands to ignore: at most %d", len(entries), MaxIgnore)
	}
	for i, e := range entries {
		switch {
		case strings.TrimSpace(e) == "":
			return fmt.Errorf("command to ignore #%d is empty", i+1)
		case len(e) > MaxIgnoreBytes:
			return fmt.Errorf("command to ignore #%d is %d bytes long: at most %d", i+1, len(e), MaxIgnoreBytes)
		case !utf8.ValidString(e) || strings.ContainsAny(e, "\n\r\x00"):
			return fmt.Errorf("command to ignore #%d (%.40q): want one line of text", i+1, e)
		}
	}
	return nil
}

// Ignored reports whether a command template is on the stop-list: an
// entry is the whole command or its first words ("clear" ignores `clear`
// and `clear -x`, not `clearml`; "git stash list" ignores that command with
// any further words). Words are compared as the fields of the template.
func Ignored(template string, ignore []string) bool {
	words := strings.Fields(template)
	for _, e := range ignore {
		prefix := strings.Fields(e)
		if len(prefix) == 0 || len(prefix) > len(words) {
			continue
		}
		if equalWords(words[:len(prefix)], prefix) {
			return true
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// NotFound reports whether an exit status says the command did not run:
// 127, not found (a typo), or 126, found but not runnable. Such a command
// is neither learnt nor suggested.
func NotFound(exit int) bool { return exit == 126 || exit == 127 }
