package playbooks

import (
	"fmt"
	"strings"
)

// ExpandVars replaces ${VAR} and ${VAR:-default} in s with what lookup gives. A
// bare $name is left alone: it belongs to the shell. A ${ never closed and an
// empty ${} are errors, which lint reports in the spawn section.
func ExpandVars(s string, lookup func(string) string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%q: ${ is never closed with }", s)
		}
		body := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(body, ":-")
		if name == "" {
			return "", fmt.Errorf("%q: empty ${}", s)
		}
		val := lookup(name)
		if val == "" && hasDef {
			val = def
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
}

// RequiredVars returns the names of the ${VAR}s of s without a default, in
// order: those ExpandVars can only fill from the environment.
func RequiredVars(s string) []string { return expansions(s, false) }

// expansions returns the names of the ${VAR}s of s, in order; withDefault says
// whether to include those with a default (${VAR:-default}).
func expansions(s string, withDefault bool) []string {
	var names []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return names
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return names
		}
		name, _, hasDef := strings.Cut(s[i+2:i+end], ":-")
		if name != "" && (withDefault || !hasDef) {
			names = append(names, name)
		}
		s = s[i+end+1:]
	}
}
