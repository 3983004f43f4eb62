// Package diag holds the findings clai reports about playbooks, the catalogue of
// the checks that produce them, and the formats they are printed in (text, JSON,
// GitHub workflow commands and SARIF).
package diag

import (
	"cmp"
	"fmt"
	"slices"
)

// Severity says whether a finding fails a lint run.
type Severity int

const (
	// Error findings make `clai lint` exit 1 and keep a playbook from running.
	Error Severity = iota
	// Warning findings are reported but only fail `clai lint --strict`.
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Pos is a place in a playbook file. Line and Col count from 1; zero means unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats the position as FILE:LINE:COL.
func (p Pos) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, max(p.Line, 1), max(p.Col, 1))
}

// Diagnostic is one finding about a playbook.
type Diagnostic struct {
	Pos
	Severity Severity
	// Rule is the id of the check that produced the finding (see rules).
	Rule    string
	Message string
	// Hint is a one-line suggestion to fix the finding.
	Hint string
}

// String formats the finding as FILE:LINE:COL: SEVERITY: MESSAGE [RULE].
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, d.Message, d.Rule)
}

// Error makes a Diagnostic usable as an error.
func (d Diagnostic) Error() string { return d.String() }

// List is a set of findings.
type List []Diagnostic

// Sort orders findings by file, line, column, then rule and message, so output is
// stable whatever order the checks ran in.
func (l List) Sort() {
	slices.SortStableFunc(l, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// Count returns the number of errors and warnings.
func (l List) Count() (errors, warnings int) {
	for _, d := range l {
		if d.Severity == Warning {
			warnings++
		} else {
			errors++
		}
	}
	return errors, warnings
}

// HasErrors reports whether any finding is an error.
func (l List) HasErrors() bool {
	e, _ := l.Count()
	return e > 0
}

// Error joins the errors of the list, one a line, so a list can be returned as an error.
func (l List) Error() string {
	var s string
	for i, d := range l {
		if i > 0 {
			s += "\n"
		}
		s += d.String()
	}
	return s
}
