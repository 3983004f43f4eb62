package learned

import (
	"strings"
	"unicode"
)

// The slots of a question's template.
const (
	slotPath = "<path>"
	slotNum  = "<num>"
	slotSHA  = "<sha>"
	slotURL  = "<url>"
)

// slot returns the slot a word of a question falls in, or "" for a word to
// keep: a URL, a number, a hex id (a git object name, a UUID) or a path.
func slot(word string) string {
	switch {
	case strings.Contains(word, "://"):
		return slotURL
	case isNumber(word):
		return slotNum
	case isHexID(word):
		return slotSHA
	case strings.ContainsRune(word, '/') || strings.HasPrefix(word, "~"):
		return slotPath
	}
	return ""
}

// isNumber reports whether word is digits, with an optional sign and
// decimal point.
func isNumber(word string) bool {
	word = strings.TrimLeft(word, "+-")
	digits := 0
	for i, r := range word {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && i > 0:
		default:
			return false
		}
	}
	return digits > 0
}

// isHexID reports whether word is a hex id of 7 to 64 digits and letters,
// holding both, or a UUID.
func isHexID(word string) bool {
	plain := strings.ReplaceAll(word, "-", "")
	if len(plain) < 7 || len(plain) > 64 || strings.Count(word, "-") != 0 && strings.Count(word, "-") != 4 {
		return false
	}
	letters, digits := 0, 0
	for _, r := range plain {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("abcdefABCDEF", r):
			letters++
		default:
			return false
		}
	}
	return letters > 0 && digits > 0
}
