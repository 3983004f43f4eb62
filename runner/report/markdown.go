package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// This file renders a Report as Markdown for a pull request comment.

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
	if rep.DecidedBy != "" {
		p("| Decided by | %s |\n", mdText(rep.DecidedBy))
	}
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

	p("\n## Questions\n\n")
	if rep.QuestionsDropped > 0 {
		p("> **Note:** the first %d questions are listed; %d later questions were left out.\n\n", len(rep.Questions), rep.QuestionsDropped)
	}
	if len(rep.Questions) == 0 {
		p("none\n")
	} else {
		p("| id | asked | why | question | options | closed | answered by · channel | sent |\n|---|--:|---|---|---|---|---|---|\n")
		for _, q := range rep.questionRows() {
			p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCode(q.ID), q.Asked, mdText(head(q.Why, 2*excerptCell)),
				mdCode(tail(q.Text, excerptCell)), mdText(head(q.Options, excerptCell)), mdText(q.Closed), mdText(q.Answer), mdCode(q.Sent))
		}
	}
	if len(rep.Answerer) > 0 {
		p("\n## Answerer\n\n| question | decision | model | answer | confidence | reason | why |\n|---|---|---|---|--:|---|---|\n")
		for _, d := range rep.Answerer {
			conf := ""
			if d.Confidence != nil {
				conf = fmt.Sprint(*d.Confidence)
			}
			p("| %s | %s | %s | %s | %s | %s | %s |\n", mdCode(d.Question), mdText(d.Decision), mdText(d.Model),
				mdCode(head(d.Answer, excerptCell)), conf, mdText(head(d.Reason, 2*excerptCell)), mdText(head(d.Why, 2*excerptCell)))
		}
	}
	return b.Flush()
}
