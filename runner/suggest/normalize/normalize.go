package normalize

import (
	"path"
	"strings"
)

// Command is a shell command line understood: its template, the words its
// slots stand for, the program it runs and whether it runs git.
type Command struct {
	// Template is the line with its varying parts replaced by slots, in one
	// canonical spelling: "git commit -m <msg>", "make test && ./run <path>".
	Template string
	// Args are the words the slots of Template stand for, in order, each as
	// shell text that reads back as the word the command had (the quotes it
	// was typed with, or quotes added where the word needs them), so that
	// Fill(Template, Args) is the command again.
	Args []string
	// Tool is the program the line runs first, by its base name, past
	// assignments and wrappers such as sudo or env: "git" for
	// "sudo -E /usr/bin/git pull". It is "" for a line that runs nothing.
	Tool string
	// Git reports whether any command of the line runs git, after which the
	// git context of the shell may have changed.
	Git bool
}

// Normalize understands one command line as a shell runs it. A line bash
// reads is parsed by a bash parser, which splits lists and pipelines
// ("a && b | c"), knows quoting and here-documents; a line it refuses (an
// unfinished quote, another shell's syntax) is split into words by shell-word
// rules with the open quote closed at the end, and past that at blanks.
// Bytes that are not UTF-8 read as U+FFFD first. The result depends on the
// line only, its template holds as many slots as it has args, and Normalize
// never fails.
func Normalize(line string) Command {
	line = strings.ToValidUTF8(line, "\uFFFD")
	if c, ok := parseBash(line); ok && SlotCount(c.Template) == len(c.Args) {
		return c
	}
	return splitWords(line)
}

// Fill puts args into the slots of template, in order, and leaves the slots
// past the last arg as they are, visible: Fill("cp <path> <path>", ["a"]) is
// "cp a <path>".
func Fill(template string, args []string) string {
	var b strings.Builder
	rest := template
	for len(args) > 0 {
		at, marker := nextSlot(rest)
		if at < 0 {
			break
		}
		b.WriteString(rest[:at])
		b.WriteString(args[0])
		args = args[1:]
		rest = rest[at+len(marker):]
	}
	b.WriteString(rest)
	return b.String()
}

// SlotCount returns how many slots template holds.
func SlotCount(template string) int { return len(Slots(template)) }

// Slots lists the slots of template in order: Slots("cp <path> <num>") is
// [SlotPath SlotNum].
func Slots(template string) []string {
	var found []string
	for {
		at, marker := nextSlot(template)
		if at < 0 {
			return found
		}
		found = append(found, marker)
		template = template[at+len(marker):]
	}
}

// slots are the markers a template holds.
var slots = []string{SlotPath, SlotNum, SlotSHA, SlotURL, SlotMsg}

// nextSlot returns where the first slot of s starts and which it is, or -1.
func nextSlot(s string) (int, string) {
	offset := 0
	for {
		at := strings.IndexByte(s[offset:], '<')
		if at < 0 {
			return -1, ""
		}
		at += offset
		for _, marker := range slots {
			if strings.HasPrefix(s[at:], marker) {
				return at, marker
			}
		}
		offset = at + 1
	}
}

// holdsSlot reports whether s holds a slot's marker, so that a word typed
// with one is itself put in a slot and Fill stays unambiguous.
func holdsSlot(s string) bool {
	at, _ := nextSlot(s)
	return at >= 0
}

// toolName is the base name of a command word: "git" for "/usr/bin/git".
func toolName(word string) string {
	if word == "" {
		return ""
	}
	return path.Base(word)
}
