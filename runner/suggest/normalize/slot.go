// Package normalize turns a shell command into a template: the command with
// the parts that change from one use to the next (paths, numbers, hashes, URLs,
// messages) replaced by slots, so that "git checkout a1b2c3d" and
// "git checkout 9f8e7d6" count as one command.
package normalize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The slots a template holds in place of the parts that vary.
const (
	SlotPath = "<path>" // a file or folder: has a slash, starts with ~ or ., or is a file name with an extension
	SlotNum  = "<num>"  // a number: digits, an optional sign, decimal point or 0x prefix
	SlotSHA  = "<sha>"  // a hex id: a git object name (7–64 hex digits, both digits and letters) or a UUID
	SlotURL  = "<url>"  // a URL with a scheme, or a scp-like git address (user@host:path)
	SlotMsg  = "<msg>"  // free text: a token holding blanks, as a quoted message does
)

// Slot returns the slot a lone token falls in (SlotPath, SlotNum, SlotSHA,
// SlotURL or SlotMsg), or "" when the token is a word to keep as it is: a
// command name, a subcommand, a flag, a branch name. The token is one word as
// the shell hands it to the program, quotes already removed. The checks go
// from the most to the least specific: a URL before a path, a number before a
// hash, a hash before a file name.
func Slot(token string) string {
	switch {
	case token == "":
		return ""
	case isMessage(token):
		return SlotMsg
	case isURL(token):
		return SlotURL
	case isNumber(token):
		return SlotNum
	case isSHA(token):
		return SlotSHA
	case isPath(token):
		return SlotPath
	}
	return ""
}

// isMessage reports whether token holds a blank (a space, tab or newline), as
// only a quoted argument can: a commit message, a title, a sentence.
func isMessage(token string) bool {
	return strings.IndexFunc(token, unicode.IsSpace) >= 0
}

// urlSchemes are the schemes a token must start with to be a URL; a word with
// "://" elsewhere is not one.
var urlSchemes = []string{"http://", "https://", "ssh://", "git://", "git+ssh://", "git+https://", "git+http://", "git+file://", "ftp://", "file://", "ws://", "wss://"}

// isURL reports whether token is a URL with a known scheme or an scp-like git
// address such as git@github.com:owner/repo.git.
func isURL(token string) bool {
	lower := strings.ToLower(token)
	for _, scheme := range urlSchemes {
		if strings.HasPrefix(lower, scheme) && len(lower) > len(scheme) {
			return true
		}
	}
	return isSCPAddress(token)
}

// isSCPAddress reports whether token is user@host:path, the form git and scp
// take for a remote over ssh.
func isSCPAddress(token string) bool {
	at := strings.IndexByte(token, '@')
	if at <= 0 {
		return false
	}
	user := token[:at]
	hostPath := token[at+1:]
	colon := strings.IndexByte(hostPath, ':')
	if colon <= 0 || colon == len(hostPath)-1 {
		return false
	}
	host := hostPath[:colon]
	return isWordOf(user, "._-") && isWordOf(host, ".-") && strings.Contains(host, ".")
}

// isWordOf reports whether s is made of ASCII letters, digits and the bytes
// of extra only.
func isWordOf(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && strings.IndexByte(extra, c) < 0 {
			return false
		}
	}
	return s != ""
}

// isNumber reports whether token is a number: decimal digits with an optional
// sign and one decimal point ("42", "-3", "0.5"), or a 0x hexadecimal ("0x1F").
func isNumber(token string) bool {
	s := strings.TrimPrefix(strings.TrimPrefix(token, "-"), "+")
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		return allBytes(s[2:], isHex)
	}
	whole, frac, hasPoint := strings.Cut(s, ".")
	if !allBytes(whole, isDigit) {
		return false
	}
	return !hasPoint || allBytes(frac, isDigit)
}

// isSHA reports whether token is a hex id: 7 to 64 hex digits holding at least
// one digit and one letter (so that a word such as "defaced" and a number
// stay what they are), or a UUID (8-4-4-4-12 hex digits).
func isSHA(token string) bool {
	if isUUID(token) {
		return true
	}
	if len(token) < 7 || len(token) > 64 || !allBytes(token, isHex) {
		return false
	}
	return strings.IndexFunc(token, unicode.IsDigit) >= 0 && strings.IndexFunc(token, unicode.IsLetter) >= 0
}

// isUUID reports whether token is a UUID in its 8-4-4-4-12 form.
func isUUID(token string) bool {
	groups := strings.Split(token, "-")
	if len(groups) != 5 {
		return false
	}
	for i, want := range []int{8, 4, 4, 4, 12} {
		if len(groups[i]) != want || !allBytes(groups[i], isHex) {
			return false
		}
	}
	return true
}

// isPath reports whether token names a file or folder: it holds a slash (but
// is not a flag, a bare scheme such as "https://", nor a choice such as "y/n" whose parts are single letters),
// starts with "~" or ".", or is a file name with an extension ("main.go").
func isPath(token string) bool {
	if strings.HasPrefix(token, "-") || strings.Contains(token, "://") {
		return false
	}
	if strings.HasPrefix(token, "~") || strings.HasPrefix(token, ".") {
		return true
	}
	if strings.Contains(token, "/") {
		return !isLetterChoice(token)
	}
	return hasExtension(token)
}

// isLetterChoice reports whether token is single letters between slashes, as
// in "y/n" or "Y/n/a": a choice, not a path.
func isLetterChoice(token string) bool {
	for part := range strings.SplitSeq(token, "/") {
		r, size := utf8.DecodeRuneInString(part)
		if size != len(part) || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// hasExtension reports whether token is a file name with an extension: a
// name, a dot, and 1 to 8 letters or digits with at least one letter
// ("main.go", "notes.md", "archive.tar.gz"). A name with "=" or ":" is a
// setting or an address, not a file.
func hasExtension(token string) bool {
	if strings.ContainsAny(token, "=:@") {
		return false
	}
	dot := strings.LastIndexByte(token, '.')
	if dot <= 0 || dot == len(token)-1 {
		return false
	}
	ext := token[dot+1:]
	if len(ext) > 8 || !allBytes(ext, isAlnum) {
		return false
	}
	return strings.IndexFunc(ext, unicode.IsLetter) >= 0
}

// allBytes reports whether s is not empty and every byte of it passes ok.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return s != ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
