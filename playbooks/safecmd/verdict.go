package safecmd

import (
	"fmt"
	"unicode/utf8"
)

// MaxLen is the longest command line judged, in bytes; a longer one is left to
// a person.
const MaxLen = 4 << 10

// Verdict is the answer about one command line.
type Verdict struct {
	// OK is set when the line may be approved without a person.
	OK bool
	// Reason says in a few words why the line is left to a person (for
	// logs), e.g. "find: -delete deletes files"; empty when OK.
	Reason string
}

// ReadOnly reports whether line only reads, inside project (the folder the
// agent works in, an absolute path): every command of it is on the read-only
// allow-list with flags that neither write, delete nor run anything, and no
// argument reaches outside project. It is linear in the length of line, which
// is at most MaxLen bytes, and safe for concurrent use.
func ReadOnly(line, project string) Verdict {
	return judgeLine(line, project, false)
}

// ProjectCode reports whether every command of line either only reads, as
// ReadOnly says, or runs the project's own tests or builds (go test, go build,
// go vet, npm test, npm run SCRIPT, make TARGET, cargo test/build/check/clippy,
// pytest) with flags that neither run other programs nor write outside
// project. Such commands run code the agent may have written; the rule that
// approves them is an opt-in.
func ProjectCode(line, project string) Verdict {
	return judgeLine(line, project, true)
}

// judgeLine judges line; code allows the programs that run the project's code.
func judgeLine(line, project string, code bool) Verdict {
	t, err := tables()
	if err != nil {
		return refuse("the allow-list does not load: %v", err)
	}
	if len(line) > MaxLen {
		return refuse("longer than %d bytes", MaxLen)
	}
	if why := checkBytes(line); why != "" {
		return Verdict{Reason: why}
	}
	if why := alarm(line); why != "" {
		return Verdict{Reason: why}
	}
	cmds, why := splitLine(line)
	if why != "" {
		return Verdict{Reason: why}
	}
	j := &judge{tableSet: t, project: cleanProject(project), code: code}
	for _, c := range cmds {
		if why := j.command(c); why != "" {
			return Verdict{Reason: why}
		}
	}
	return Verdict{OK: true}
}

// refuse is a Verdict that leaves the line to a person for the reason given.
func refuse(format string, args ...any) Verdict {
	return Verdict{Reason: fmt.Sprintf(format, args...)}
}

// checkBytes refuses a line with anything but printable ASCII: a control
// character, or a character outside ASCII, which may be a look-alike of one
// (U+2212 for -, a fullwidth letter, a zero-width space, a bidi override).
func checkBytes(line string) string {
	if line == "" {
		return "an empty command"
	}
	for i := 0; i < len(line); i++ {
		switch b := line[i]; {
		case b >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(line[i:])
			if r == utf8.RuneError && size == 1 {
				return "bytes that are not UTF-8"
			}
			return fmt.Sprintf("a character outside ASCII (U+%04X), perhaps a look-alike", r)
		case b < 0x20 || b == 0x7F:
			return fmt.Sprintf("a control character (%#02x)", b)
		}
	}
	return ""
}
