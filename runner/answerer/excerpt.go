package answerer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/runner/ask"
)

// MaxExcerpt is the most characters of a model's unusable reply that its
// decision's log line quotes.
const MaxExcerpt = 300

// ReplyError is the error of a reply that was read but cannot be used (no
// JSON object in it, no answer, an answer that cannot be typed): it keeps
// an excerpt of the reply, so that a wrapper that writes something else can
// be debugged from the log.
type ReplyError struct {
	// Excerpt is the reply's start: at most MaxExcerpt characters, the
	// model's secrets masked, control and format characters escaped.
	Excerpt string
	err     error
}

// Error says what went wrong.
func (e *ReplyError) Error() string { return e.err.Error() }

// Unwrap returns why the reply cannot be used.
func (e *ReplyError) Unwrap() error { return e.err }

// withExcerpt makes err, the error of reply, a *ReplyError that quotes it
// with each of secrets masked.
func withExcerpt(err error, reply []byte, secrets []string) error {
	return &ReplyError{Excerpt: excerpt(reply, secrets), err: err}
}

// excerpt is reply's start for a log line: secrets masked (before it is cut,
// so that no cut piece of one shows), invalid UTF-8 replaced, every
// character a terminal does not show as itself escaped as \n, \t or \u….
func excerpt(reply []byte, secrets []string) string {
	text := masked(strings.ToValidUTF8(string(reply), "\uFFFD"), secrets)
	var b strings.Builder
	n := 0
	for _, r := range text {
		if n == MaxExcerpt {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\\':
			b.WriteString(`\\`)
		case ask.Hidden(r) || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// masked is text with each of secrets masked, in every form a terminal or
// an encoder may show it (see internal/redact).
func masked(text string, secrets []string) string {
	if len(secrets) == 0 {
		return text
	}
	return redact.New(nil, secrets).String(text)
}
