// Package notify tells people, through the targets of a playbook's and the
// user config's notify: lists, when a run needs one and how it ended (see
// docs/notifications.md). A Sender consumes the updates of a running session
// (an ask.Desk) and delivers each notification from an outbox per target,
// off the answer's path: a failed attempt is tried again after a jittered
// backoff while the others go, a question that closes is taken out of every
// outbox and each target that has it is told it closed, memory is bounded,
// and what is left is given up a bounded time after the run ends. Secrets
// never reach a log line or an error: a target is named by its service and
// host, and its credentials are masked in every message.
//
// The notification and its text are in notification.go, the targets in
// url.go, webhook.go, command.go and desktop.go, the sender in sender.go and
// the outbox in outbox.go.
package notify

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
)

// Version is the version of the notification's JSON shape.
const Version = 1

// Notification is what a target is told. Its JSON shape is
// schema/notification.schema.json: a webhook's body, a command's stdin.
type Notification struct {
	Version int                   `json:"version"`
	ID      string                `json:"id"`
	Event   playbooks.NotifyEvent `json:"event"`
	At      time.Time             `json:"at"`
	// Title is one line for a person; Text says what happened.
	Title   string      `json:"title"`
	Text    string      `json:"text"`
	Session ask.Session `json:"session"`
	// Question is the question opened, for question, danger and manual.
	Question *ask.Question `json:"question,omitempty"`
	// Rule and Matched are a danger hit's that opened no question.
	Rule    string `json:"rule,omitempty"`
	Matched string `json:"matched,omitempty"`
	// Outcome and ExitCode are set at the end of the run.
	Outcome  string `json:"outcome,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Answer says how to answer the question.
	Answer *HowToAnswer `json:"answer,omitempty"`
	// Closed says how the question closed, for EventClosed.
	Closed *ClosedQuestion `json:"closed,omitempty"`
}

// EventClosed is the event of the follow-up that tells a target which was
// told of a question that the question closed. It is no event of on: a
// target hears of the close of each question it was told of.
const EventClosed playbooks.NotifyEvent = "closed"

// ClosedQuestion is how a question a target was told of closed.
type ClosedQuestion struct {
	// Question is the question's id.
	Question string `json:"question"`
	// How is ask.Answered, ask.MovedOn or ask.Ended.
	How string `json:"how"`
	// By, Channel and Sent are set for an answered question: who answered,
	// through which channel, and what was typed (masked by the session).
	By      string `json:"by,omitempty"`
	Channel string `json:"channel,omitempty"`
	Sent    string `json:"sent,omitempty"`
}

// HowToAnswer are the commands that answer a question from this machine.
type HowToAnswer struct {
	// Suggested has one command for each of the question's suggestions,
	// the likeliest first.
	Suggested []string `json:"suggested,omitempty"`
	// Text types a line: TEXT stands for it.
	Text string `json:"text"`
	// Choose has one command for each option.
	Choose []string `json:"choose,omitempty"`
	// Dashboard is the running dashboard's address with its token, when
	// one runs and the target takes it.
	Dashboard string `json:"dashboard,omitempty"`
}

// maskDashboard is s with the dashboard's address, and its token wherever
// it is quoted, masked: a target's error may quote what it was sent.
func (n *Notification) maskDashboard(s string) string {
	if n.Answer == nil || n.Answer.Dashboard == "" {
		return s
	}
	address := n.Answer.Dashboard
	args := []string{address, "(the dashboard)"}
	if u, err := url.Parse(address); err == nil {
		for _, token := range u.Query()["token"] {
			if token != "" {
				args = append(args, token, "***", url.QueryEscape(token), "***")
			}
		}
	}
	return strings.NewReplacer(args...).Replace(s)
}

// Bounds of the screen excerpt a notification carries.
const (
	ExcerptLines = 12
	ExcerptWidth = 200
)

// candidates lists the events an update may be told as, the most specific
// first; a target is told of the first it asks for. Nil: nobody is told.
func candidates(u ask.Update) []playbooks.NotifyEvent {
	switch u.Kind {
	case ask.UpdateQuestion:
		if u.Question == nil {
			return nil
		}
		switch u.Question.Reason {
		case ask.Prompt:
			return []playbooks.NotifyEvent{playbooks.NotifyQuestion}
		case ask.Danger:
			return []playbooks.NotifyEvent{playbooks.NotifyDanger, playbooks.NotifyManual, playbooks.NotifyQuestion}
		}
		return []playbooks.NotifyEvent{playbooks.NotifyManual, playbooks.NotifyQuestion}
	case ask.UpdateDanger:
		if u.Reason == string(playbooks.DangerManual) || u.State == "manual" {
			// A hand-over opens a question, which carries the danger; a
			// run already handed over told its person so.
			return nil
		}
		return []playbooks.NotifyEvent{playbooks.NotifyDanger}
	case ask.UpdateEnd:
		switch u.Outcome {
		case "done":
			return []playbooks.NotifyEvent{playbooks.NotifyDone}
		case "timeout":
			return []playbooks.NotifyEvent{playbooks.NotifyTimeout}
		}
		return []playbooks.NotifyEvent{playbooks.NotifyFailed}
	}
	return nil
}

// build makes the notification of update u as event ev, in session s.
func build(id string, ev playbooks.NotifyEvent, u ask.Update, s ask.Session) *Notification {
	s.Question = nil
	n := &Notification{Version: Version, ID: id, Event: ev, At: u.At, Session: s,
		Outcome: u.Outcome, ExitCode: u.ExitCode}
	if u.Question != nil {
		q := *u.Question
		q.Screen = excerpt(q.Screen)
		n.Question = &q
	}
	name := s.Name
	if name == "" {
		name = s.Playbook
	}
	if s.Host != "" {
		// The hub tells of runs of several machines: the title says which.
		name += " on " + oneLine(s.Host)
	}
	switch {
	case u.Question != nil:
		n.Title = fmt.Sprintf("clai: %s asks", name)
		if ev != playbooks.NotifyQuestion {
			n.Title = fmt.Sprintf("clai: %s needs you (%s)", name, u.Question.Reason)
		}
		n.Text = oneLine(u.Question.Text)
		if u.Question.Summary != "" {
			n.Text = oneLine(u.Question.Summary)
		}
		n.Answer = answerCommands(s.ID, u.Question)
	case u.Kind == ask.UpdateDanger:
		n.Rule, n.Matched = u.Rule, u.Matched
		n.Title = fmt.Sprintf("clai: %s: danger rule %s", name, oneLine(u.Rule))
		n.Text = oneLine(u.Matched)
	default:
		n.Title = fmt.Sprintf("clai: %s ended: %s", name, u.Outcome)
		n.Text = "outcome " + u.Outcome
		if u.ExitCode != nil {
			n.Text += fmt.Sprintf(", exit code %d", *u.ExitCode)
		}
	}
	return n
}

// Bounds of what a close says of who answered and what was typed.
const (
	closedByWidth   = 64
	closedSentWidth = 200
)

// buildClosed makes the follow-up that tells of the close of u's question,
// in session s. The question it carries is cut to what names it: its
// screen, suggestions and the commands that answer it are left out.
func buildClosed(id string, u ask.Update, s ask.Session) *Notification {
	s.Question = nil
	q := *u.Question
	q.Screen, q.ScreenHash, q.Suggestions, q.Summary = "", "", nil, ""
	c := &ClosedQuestion{Question: q.ID, How: ask.Ended}
	at := u.At
	if q.Closed != nil {
		c.How, c.By, c.Channel, c.Sent = q.Closed.How, cut(oneLine(q.Closed.By), closedByWidth),
			oneLine(q.Closed.Channel), cut(oneLine(q.Closed.Sent), closedSentWidth)
		if !q.Closed.At.IsZero() {
			at = q.Closed.At
		}
		closed := *q.Closed
		closed.By, closed.Channel, closed.Sent = c.By, c.Channel, c.Sent
		q.Closed = &closed
	}
	name := s.Name
	if name == "" {
		name = s.Playbook
	}
	return &Notification{Version: Version, ID: id, Event: EventClosed, At: at, Session: s, Question: &q, Closed: c,
		Title: fmt.Sprintf("clai: %s: question closed", name), Text: closedText(c)}
}

// closedText says in one line how a question closed.
func closedText(c *ClosedQuestion) string {
	switch c.How {
	case ask.Answered:
		text := "answered"
		if c.By != "" {
			text += " by " + c.By
		}
		if c.Channel != "" {
			text += " via " + c.Channel
		}
		if c.Sent != "" {
			text += ": " + c.Sent
		}
		return text
	case ask.MovedOn:
		return "moved on: the program went on by itself"
	}
	return "closed: the run ended"
}

// cut is s cut to at most n characters, an ellipsis marking the cut.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// answerCommands are the commands a person types to answer q, and only q:
// one pasted after it closed is refused rather than typed at the next
// question. The options' labels come from the program, so each is quoted for
// a POSIX shell.
func answerCommands(session string, q *ask.Question) *HowToAnswer {
	answer := fmt.Sprintf("clai answer --question %s", shellQuote(q.ID))
	a := &HowToAnswer{Text: fmt.Sprintf("%s %s TEXT", answer, shellQuote(session))}
	for _, s := range q.Suggestions {
		if s.Option {
			a.Suggested = append(a.Suggested, fmt.Sprintf("%s --choose %s %s", answer, shellQuote(s.Text), shellQuote(session)))
		} else {
			a.Suggested = append(a.Suggested, fmt.Sprintf("%s %s -- %s", answer, shellQuote(session), shellQuote(s.Text)))
		}
	}
	for _, o := range q.Options {
		a.Choose = append(a.Choose, fmt.Sprintf("%s --choose %s %s", answer, shellQuote(o.Label), shellQuote(session)))
	}
	return a
}

// shellQuote quotes s for a POSIX shell, control characters dropped: text
// the program chose can never run as a command when pasted.
func shellQuote(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./:=@", r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// oneLine is s on one line: control characters are spaces.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

// excerpt is the last ExcerptLines lines of screen, each cut to ExcerptWidth
// characters, trailing blank lines dropped.
func excerpt(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	if len(lines) > ExcerptLines {
		lines = lines[len(lines)-ExcerptLines:]
	}
	for i, l := range lines {
		l = strings.TrimRight(l, " \r")
		if r := []rune(l); len(r) > ExcerptWidth {
			l = string(r[:ExcerptWidth]) + "…"
		}
		lines[i] = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) && r != '\t' {
				return ' '
			}
			return r
		}, l)
	}
	return strings.Join(lines, "\n")
}

// Message is the notification as text for a person: what happened, the
// options, the screen's last lines and how to answer.
func (n *Notification) Message() string {
	var b strings.Builder
	b.WriteString(n.Text)
	if n.Event == EventClosed {
		if n.Question != nil {
			b.WriteString("\nquestion: " + oneLine(n.Question.Text))
		}
		return b.String()
	}
	if q := n.Question; q != nil {
		if q.Summary != "" {
			b.WriteString("\nquestion: " + oneLine(q.Text))
		}
		if len(q.Suggestions) > 0 {
			b.WriteString("\nsuggested: " + suggested(q.Suggestions))
		}
		if len(q.Options) > 0 {
			labels := make([]string, len(q.Options))
			for i, o := range q.Options {
				labels[i] = oneLine(o.Label)
			}
			b.WriteString("\noptions: " + strings.Join(labels, ", "))
		}
		if x := excerpt(q.Screen); x != "" {
			b.WriteString("\n--- screen ---\n" + x)
		}
	}
	if a := n.Answer; a != nil {
		b.WriteString("\n--- answer ---")
		for _, c := range a.Suggested {
			b.WriteString("\n" + c)
		}
		b.WriteString("\n" + a.Text)
		for _, c := range a.Choose {
			b.WriteString("\n" + c)
		}
		if a.Dashboard != "" {
			b.WriteString("\n" + a.Dashboard)
		}
	}
	return b.String()
}

// suggested lists suggestions on one line, each with its share of people's
// answers, or its source.
func suggested(ss []ask.Suggestion) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		if s.Count > 0 {
			parts[i] = fmt.Sprintf("%s (given %d times, %.0f%%)", oneLine(s.Text), s.Count, 100*s.Confidence)
		} else {
			parts[i] = fmt.Sprintf("%s (%s)", oneLine(s.Text), s.Source)
		}
	}
	return strings.Join(parts, ", ")
}
