package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file renders a Report as Markdown for a pull request comment, and holds the
// helpers the Markdown and HTML reports share.

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

// visible shows text on one line with its control characters made visible: ⏎ for
// a carriage return, ␤ for a line feed, ⇥ for a tab, ␛ for escape, the Unicode
// control pictures for the other C0 controls, \uXXXX for other invisible line
// breaks and C1 controls. Invalid UTF-8 shows as U+FFFD.
func visible(s string) string {
	return showControls(s, false)
}

// visibleBlock is visible for a block of text: line breaks stay line breaks (a
// CR LF pair is one), a lone carriage return shows as ⏎.
func visibleBlock(s string) string {
	return showControls(s, true)
}

func showControls(s string, block bool) string {
	if !strings.ContainsFunc(s, needsShowing) && utf8.ValidString(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i, r := range s {
		switch {
		case block && r == '\n':
			b.WriteByte('\n')
		case block && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// part of a line break
		case block && r == '\t':
			b.WriteByte('\t')
		case r == '\r':
			b.WriteRune('⏎')
		case r == '\n':
			b.WriteRune('␤')
		case r == '\t':
			b.WriteRune('⇥')
		case r == 0x1b:
			b.WriteRune('␛')
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		case needsShowing(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsShowing reports whether r is invisible or breaks a line.
func needsShowing(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

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

// mdEscaper escapes the characters Markdown could read as formatting, and the pipe
// that would end a table cell.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "~", `\~`, "&", `\&`, "#", `\#`,
)

// mdText is s as literal Markdown text on one line.
func mdText(s string) string { return mdEscaper.Replace(visible(s)) }

// mdCode is s as an inline code span on one line, or "" for an empty s. Inside a
// code span nothing is formatting; a pipe is still escaped because GitHub splits
// table cells before it reads code spans.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(visible(s), "|", `\|`)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdRuleStep is ruleStep with names as code.
func mdRuleStep(e Event) string {
	switch {
	case e.Rule != "" && e.Step != "":
		return mdCode(e.Rule) + " · step " + mdCode(e.Step)
	case e.Step != "":
		return "step " + mdCode(e.Step)
	}
	return mdCode(e.Rule)
}

// writeMarkdown writes the report as GitHub-flavoured Markdown.
func (rep *Report) writeMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }

	name := rep.Playbook.Name
	if name == "" {
		name = "playbook"
	}
	p("# clai report: %s — **%s**\n\n", mdText(name), rep.statusWord())

	p("| | |\n|---|---|\n")
	pb := mdCode(rep.Playbook.Path)
	if sha := rep.shortSHA(); sha != "" {
		pb += " (sha256 " + mdCode(sha) + ")"
	}
	p("| Playbook | %s |\n", pb)
	p("| Mode | %s |\n", mdText(rep.Mode))
	p("| Outcome | **%s** |\n", rep.statusWord())
	p("| Exit code | %d |\n", rep.ExitCode)
	p("| Reason | %s |\n", mdText(rep.Reason))
	p("| Program | %s |\n", mdText(rep.childStatus()))
	if text := rep.outputErrorText(); text != "" {
		p("| Not written | %s |\n", mdText(text))
	}
	p("| Duration | %s |\n", rep.duration())
	if at := rep.startedAt(); at != "" {
		p("| Started | %s |\n", at)
	}

	p("\n## Timeline\n\n")
	if rep.TimelineDropped > 0 {
		p("> **Note:** the timeline shows the first %d events; %d later events were left out.\n\n", len(rep.Timeline), rep.TimelineDropped)
	}
	if len(rep.Timeline) == 0 {
		p("No events.\n")
	} else {
		p("| t (ms) | event | state | rule / step | matched | sent / would send | reason |\n")
		p("|--:|---|---|---|---|---|---|\n")
		for _, e := range rep.Timeline {
			p("| %s | %s | %s | %s | %s | %s | %s |\n", msString(e.TimeMS), mdText(string(e.Event)), mdText(stateOf(e)),
				mdRuleStep(e), mdCode(tail(visible(e.Excerpt), excerptCell)), mdCode(head(visible(e.Sent), excerptCell)),
				mdText(head(reasonOf(e), 2*excerptCell)))
		}
	}

	p("\n## Rules\n\n")
	if len(rep.Rules) == 0 {
		p("none\n")
	} else {
		p("| rule | fired |\n|---|--:|\n")
		for _, name := range rep.sortedRules() {
			p("| %s | %d |\n", mdCode(name), rep.Rules[name])
		}
	}

	p("\n## Never fired\n\n")
	if len(rep.NeverFired) == 0 {
		p("none\n")
	}
	for _, name := range rep.NeverFired {
		p("- %s\n", mdCode(name))
	}

	p("\n## Danger hits\n\n")
	if rep.DangerHitsDropped > 0 {
		p("> **Note:** the first %d danger hits are listed; %d later hits were left out (the rules table counts them all).\n\n", len(rep.DangerHits), rep.DangerHitsDropped)
	}
	if len(rep.DangerHits) == 0 {
		p("none\n")
	} else {
		p("| t (ms) | rule | matched | action | state |\n|--:|---|---|---|---|\n")
		for _, e := range rep.DangerHits {
			p("| %s | %s | %s | %s | %s |\n", msString(e.TimeMS), mdRuleStep(e),
				mdCode(tail(visible(e.Excerpt), excerptCell)), mdText(e.Reason), mdText(stateOf(e)))
		}
	}

	p("\n## Prompts nobody answered\n\n")
	if len(rep.Unanswered) == 0 {
		p("none\n")
	} else {
		p("| t (ms) | question | reason | state |\n|--:|---|---|---|\n")
		for _, e := range rep.Unanswered {
			p("| %s | %s | %s | %s |\n", msString(e.TimeMS), mdCode(tail(visible(e.Excerpt), excerptCell)),
				mdText(e.Reason), mdText(stateOf(e)))
		}
	}
	return b.Flush()
}
