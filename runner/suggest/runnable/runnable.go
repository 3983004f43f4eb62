// Package runnable tells whether a suggested command is one the user's shell
// can run: bash and zsh lines are parsed by mvdan.cc/sh, fish lines are read
// by a fish-aware rule (see fish.go). A command may hold the slots of
// runner/suggest/normalize (<path>, <num>, <sha>, <url>, <msg>), which are
// for the user to fill: each is read as one plain word, and the rest of the
// line is checked.
package runnable

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/clai-sh/clai/runner/suggest/normalize"
)

// The shells Check knows by name; any other name, and "", is read by the
// POSIX and bash rules.
const (
	Bash = "bash"
	Zsh  = "zsh"
	Fish = "fish"
)

// MaxLen is the longest command Check reads, in bytes: a longer one is
// refused (ErrTooLong) unread, so that a check stays cheap whatever the
// store holds (a suggestion is shown on one line: none useful is near as
// long). The fish rule reads in linear time; mvdan.cc/sh takes longer on
// substitutions nested thousands deep, some 15 to 40 ms at this length.
const MaxLen = 16 << 10

// placeholder is the word a slot is read as: plain letters, one word in any
// quoting context (unquoted, in single or double quotes), a redirection's
// target, an assignment's value or a command, in every shell checked. A slot
// quoted as '<path>' would break inside a single-quoted word.
const placeholder = "slot"

// Errors of Check.
var (
	// ErrEmpty is the error of a command with nothing to run.
	ErrEmpty = errors.New("no command to run")
	// ErrTooLong is the error of a command longer than MaxLen.
	ErrTooLong = fmt.Errorf("longer than %d bytes", MaxLen)
)

// Check returns nil when command, its slots read as plain words, is a line
// shell can run, and else an error that says why not. shell is "bash",
// "zsh" or "fish"; any other name, "" included, means an unknown shell, read
// by the bash rules (which take POSIX sh too). It reads the command once,
// in time linear in its length, and never runs anything.
func Check(shell, command string) error {
	if len(command) > MaxLen {
		return fmt.Errorf("%s: %w", shellName(shell), ErrTooLong)
	}
	line := withPlaceholders(command)
	if strings.TrimSpace(line) == "" {
		return fmt.Errorf("%s: %w", shellName(shell), ErrEmpty)
	}
	switch shell {
	case Fish:
		return checkFish(line)
	case Zsh:
		return parse(syntax.LangZsh, line)
	default:
		return parse(syntax.LangBash, line)
	}
}

// shellName is shell as errors name it.
func shellName(shell string) string {
	switch shell {
	case Fish, Zsh:
		return shell
	}
	return Bash
}

// withPlaceholders is command with each slot replaced by placeholder.
func withPlaceholders(command string) string {
	n := normalize.SlotCount(command)
	if n == 0 {
		return command
	}
	words := make([]string, n)
	for i := range words {
		words[i] = placeholder
	}
	return normalize.Fill(command, words)
}

// parse checks line with mvdan.cc/sh's parser for lang. zsh is read by
// LangZsh, which knows zsh's own syntax (glob qualifiers, parameter flags,
// "=(…)", "&|", "{ … }" without a last ";") and refuses bash's (such as
// "${x^^}"); its support is incomplete, so a zsh form it does not know yet
// (the short "for x (…) cmd") is refused: a suggestion left out, never one
// that fails to parse.
func parse(lang syntax.LangVariant, line string) error {
	parser := syntax.NewParser(syntax.KeepComments(false), syntax.Variant(lang))
	file, err := parser.Parse(strings.NewReader(line), "")
	if err != nil {
		return fmt.Errorf("%s: %w", langName(lang), err)
	}
	if len(file.Stmts) == 0 {
		return fmt.Errorf("%s: %w", langName(lang), ErrEmpty)
	}
	return nil
}

// langName is the shell lang reads.
func langName(lang syntax.LangVariant) string {
	if lang == syntax.LangZsh {
		return Zsh
	}
	return Bash
}
