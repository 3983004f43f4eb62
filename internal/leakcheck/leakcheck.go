// Package leakcheck makes secrets, shows them the ways programs do, and finds
// them in what clai wrote: the tools of the tests that prove no secret leaks.
//
// A secret is found in an artifact as it is, in any of its escaped forms (JSON,
// a Go quoted string, HTML), in the text of the artifact's quoted strings and
// HTML entities decoded, and as a terminal would show it (escape sequences,
// line breaks and blanks looked through); from 8 characters on, any 8
// characters of it in a row count.
package leakcheck

import (
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ways are the ways Show draws a secret.
var ways = []string{"plain", "colour", "crlf", "wrap", "split"}

// Ways returns the ways Show draws a secret.
// A new copy each call: callers may change it.
func Ways() []string { return slices.Clone(ways) }

// alphabet is what secrets are made of: quotes, backslashes and characters
// that HTML, JSON and Go escape, letters of several scripts and widths. It
// has no '*' (the mask), '.' (Show's filler) nor '|'.
var alphabet = []rune(`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"\'<>&$#@!?-_=+éßøЖж中語☃🙂`)

// Secret returns a random secret of 4 to 64 characters; about a third of them
// have several lines. Each has a quote or a backslash and a character beyond
// ASCII, so that no text clai writes of its own holds one by chance.
func Secret(r *rand.Rand) string {
	n := 4 + r.IntN(61)
	runes := make([]rune, n)
	for i := range runes {
		runes[i] = alphabet[r.IntN(len(alphabet))]
	}
	runes[r.IntN(n)] = []rune(`"\`)[r.IntN(2)]
	runes[r.IntN(n)] = []rune("é中🙂Ж")[r.IntN(4)]
	if n >= 12 && r.IntN(3) == 0 {
		// Line breaks, never first, last or next to one another.
		for range 1 + r.IntN(2) {
			i := 1 + r.IntN(n-2)
			if runes[i-1] != '\n' && runes[i+1] != '\n' {
				runes[i] = '\n'
			}
		}
	}
	return string(runes)
}

// Block is the text a program draws around a secret shown in way: "BEGIN",
// the secret, "END" on a line of its own. A filler before it puts the secret across
// the right margin of a terminal cols wide (way "wrap"), one after it makes a
// 200-byte excerpt of the whole block end halfway through the secret.
func Block(way, secret string, cols int) string {
	var lead string
	if way == "wrap" {
		// "BEGIN" and the lead end a few columns before the margin.
		lead = strings.Repeat(".", max(cols-5-2, 0))
	}
	half := len(secret) / 2
	trail := strings.Repeat(".", max(200-4-(len(secret)-half), 0))
	return "BEGIN" + lead + Show(way, secret) + trail + "\nEND\n"
}

// Show is secret as a program writes it in way: as it is ("plain", "wrap",
// "split"), with a colour around each character ("colour", as fish, zsh
// highlighting or IPython draw what is typed), or with its line breaks as a
// terminal echoes them ("crlf").
func Show(way, secret string) string {
	switch way {
	case "colour":
		var b strings.Builder
		for i, r := range secret {
			if r == '\n' {
				b.WriteString("\r\n")
				continue
			}
			fmt.Fprintf(&b, "\x1b[%dm%c\x1b[0m", 31+i%6, r)
		}
		return b.String()
	case "crlf":
		return strings.ReplaceAll(secret, "\n", "\r\n")
	}
	return secret
}

// Find returns where artifact shows secret, or "" if it does not.
func Find(artifact, secret string) string {
	forms := map[string]string{
		"the secret":  secret,
		"as JSON":     jsonInside(secret),
		"as %q":       strings.Trim(strconv.Quote(secret), `"`),
		"as HTML":     html.EscapeString(secret),
		"as it shows": shown(secret),
	}
	decoded := map[string]string{
		"":                          artifact,
		" (quoted strings decoded)": decodeStrings(artifact),
		" (HTML decoded)":           html.UnescapeString(artifact),
		" (Markdown decoded)":       mdUnescape.ReplaceAllString(artifact, "$1"),
	}
	texts := map[string]string{}
	for how, text := range decoded {
		texts[how] = text
		texts[how+", as it shows"] = shown(text)
	}
	for how, text := range texts {
		for form, f := range forms {
			if f != "" && utf8.RuneCountInString(f) >= 4 && strings.Contains(text, f) {
				return fmt.Sprintf("%s %q%s", form, f, how)
			}
		}
		for _, f := range []string{secret, shown(secret)} {
			for i := range eightRunes(f) {
				if strings.Contains(text, i) {
					return fmt.Sprintf("8 characters of it, %q%s", i, how)
				}
			}
		}
	}
	return ""
}

// eightRunes returns each run of 8 characters of s without a line break.
func eightRunes(s string) map[string]bool {
	runes := []rune(s)
	out := map[string]bool{}
	for i := 0; i+8 <= len(runes); i++ {
		w := string(runes[i : i+8])
		if !strings.Contains(w, "\n") {
			out[w] = true
		}
	}
	return out
}

func jsonInside(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// quoted matches a string in double quotes, as JSON and Go write them.
var quoted = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// mdUnescape matches a backslash escape of Markdown.
var mdUnescape = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)

// decodeStrings returns the text of each quoted string in s, decoded, one a line.
func decodeStrings(s string) string {
	var b strings.Builder
	for _, q := range quoted.FindAllString(s, -1) {
		var v string
		if err := json.Unmarshal([]byte(q), &v); err != nil {
			if v, err = strconv.Unquote(q); err != nil {
				continue
			}
		}
		b.WriteString(v)
		b.WriteString("\n|\n")
	}
	return b.String()
}

// escape matches an escape sequence: CSI, OSC to BEL or ST, or ESC and a byte.
var escape = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])`)

// shown is s as a terminal shows it, with what stands for a control character
// in a report (⏎ ␤ ⇥ ␛) read as one, and without blanks: escape sequences,
// control characters and spaces dropped.
func shown(s string) string {
	s = escape.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f || r == '⏎' || r == '␤' || r == '⇥' || r == '␛' || r == '␍' {
			return -1
		}
		return r
	}, s)
}
