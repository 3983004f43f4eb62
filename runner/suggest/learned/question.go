package learned

import (
	"strings"
	"unicode"

	"github.com/clai-sh/clai/runner/suggest/normalize"
)

// Template returns a question's text with the parts that change from one
// run to the next (numbers, paths, hashes and ids, URLs) replaced by the
// slots of command templates (normalize.Slot),
// so that "Delete 3 files in /tmp/a?" and "Delete 12 files in /srv/b?" are one
// question. Blanks are folded to one space; a [y/N]-style choice is kept as
// it is, as is every word.
func Template(text string) string {
	fields := strings.Fields(text)
	for i, f := range fields {
		fields[i] = templateWord(f)
	}
	return strings.Join(fields, " ")
}

// templateWord returns a word of a question with its core, the word without
// the punctuation around it, replaced by its slot, if it has one.
func templateWord(word string) string {
	// A leading dot is a relative path's (./src, ../a), never punctuation.
	start := strings.IndexFunc(word, func(r rune) bool { return r == '.' || !isEdgePunct(r) })
	if start < 0 {
		return word
	}
	end := strings.LastIndexFunc(word, func(r rune) bool { return !isEdgePunct(r) }) + 1
	if end <= start {
		return word // a dot and punctuation only
	}
	// The core keeps a path's trailing slash and a URL's last character.
	for end < len(word) && word[end] == '/' {
		end++
	}
	lead, core, trail := word[:start], word[start:end], word[end:]
	if isChoiceMark(lead, core, trail) {
		return word
	}
	if s := normalize.Slot(core); s != "" {
		return lead + s + trail
	}
	return word
}

// isEdgePunct reports whether r is punctuation a word of a question may be
// wrapped in or end with: quotes, brackets, a colon, a question mark.
func isEdgePunct(r rune) bool {
	return strings.ContainsRune("\"'`([{<>}]),.;:?!", r)
}

// isChoiceMark reports whether a bracketed word is a [y/N]-style choice: a
// few short words of letters between slashes.
func isChoiceMark(lead, core, trail string) bool {
	if !strings.ContainsAny(lead, "[(") || !strings.ContainsAny(trail, "])") {
		return false
	}
	parts := strings.Split(core, "/")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 8 || strings.IndexFunc(p, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			return false
		}
	}
	return true
}
