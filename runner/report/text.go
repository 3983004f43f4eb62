package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clai-sh/clai/runner/ask"
)

// This file holds what the Markdown and HTML reports share: how a report's
// values read as text, and how text with control characters is shown.

// excerptCell is how many characters of an excerpt a table cell shows.
const excerptCell = 80

// statusWord is the outcome as one upper-case word: DONE, ABORTED, MANUAL …
func (rep *Report) statusWord() string {
	if rep.Outcome == "" {
		return "UNKNOWN"
	}
	return strings.ToUpper(string(rep.Outcome))
}

// shortSHA is the first 12 digits of the playbook's hash.
func (rep *Report) shortSHA() string {
	if len(rep.Playbook.SHA256) > 12 {
		return rep.Playbook.SHA256[:12]
	}
	return rep.Playbook.SHA256
}

// childStatus describes how the program ended.
func (rep *Report) childStatus() string {
	if rep.Child == nil {
		return "not started, or unknown"
	}
	if rep.Child.Signal != "" {
		return fmt.Sprintf("exit %d (%s)", rep.Child.Code, rep.Child.Signal)
	}
	return fmt.Sprintf("exit %d", rep.Child.Code)
}

// duration is the run's length, as Go writes durations ("1.234s").
func (rep *Report) duration() string {
	return (time.Duration(rep.DurationMS) * time.Millisecond).String()
}

// startedAt is when the run started, in UTC, or "" when the report does not say.
func (rep *Report) startedAt() string {
	if rep.StartedAt.IsZero() {
		return ""
	}
	return rep.StartedAt.UTC().Format(time.RFC3339)
}

// sortedRules lists the per-rule counts by rule name.
func (rep *Report) sortedRules() []string {
	names := make([]string, 0, len(rep.Rules))
	for name := range rep.Rules {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// msString is a time in milliseconds with one decimal.
func msString(ms float64) string { return strconv.FormatFloat(ms, 'f', 1, 64) }

// ruleStep names the rule and the step of an event, as plain text.
func ruleStep(e Event) string {
	switch {
	case e.Rule != "" && e.Step != "":
		return e.Rule + " · step " + e.Step
	case e.Step != "":
		return "step " + e.Step
	}
	return e.Rule
}

// stateOf shows an event's state, with where it came from for a state change.
func stateOf(e Event) string {
	if e.From != "" {
		return string(e.From) + " → " + string(e.State)
	}
	return string(e.State)
}

// reasonOf is an event's reason, with its byte count when it has one.
func reasonOf(e Event) string {
	if e.Bytes == 0 {
		return e.Reason
	}
	b := strconv.Itoa(e.Bytes) + " bytes"
	if e.Reason == "" {
		return b
	}
	return e.Reason + " (" + b + ")"
}

// visible is ask.Visible: text on one line, what a person could not read
// made visible.
func visible(s string) string { return ask.Visible(s) }

// visibleBlock is ask.VisibleBlock: line breaks stay line breaks.
func visibleBlock(s string) string { return ask.VisibleBlock(s) }

// tail keeps the last n characters of s, marking a cut with a leading "…"; the end
// of an excerpt is what matched.
func tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-(n-1):])
}

// head keeps the first n characters of s, marking a cut with a trailing "…".
func head(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// questionRow is a question as the Markdown and HTML reports show it.
type questionRow struct {
	ID, Asked, Why, Text, Options, Closed, Answer, Sent string
}

// questionRows returns the report's questions as its tables show them: when
// they were asked and closed counted from the start, what they asked and
// offered, and who answered through what.
func (rep *Report) questionRows() []questionRow {
	rows := make([]questionRow, 0, len(rep.Questions))
	since := func(t time.Time) string {
		if rep.StartedAt.IsZero() {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return msString(float64(t.Sub(rep.StartedAt).Microseconds())/1000) + " ms"
	}
	for _, q := range rep.Questions {
		labels := make([]string, len(q.Options))
		for i, o := range q.Options {
			labels[i] = o.Label
		}
		why := string(q.Reason)
		if q.Detail != "" {
			why += ": " + q.Detail
		}
		r := questionRow{ID: visible(q.ID), Asked: since(q.AskedAt), Why: visible(why), Text: visible(q.Text),
			Options: visible(strings.Join(labels, " | ")), Closed: "open at the end"}
		if c := q.Closed; c != nil {
			r.Closed = c.How + " at " + since(c.At)
			switch {
			case c.By != "" && c.Channel != "":
				r.Answer = visible(c.By + " · " + c.Channel)
			default:
				r.Answer = visible(c.By + c.Channel)
			}
			r.Sent = visible(c.Sent)
		}
		rows = append(rows, r)
	}
	return rows
}
