package runner

import (
	"unicode/utf8"

	"github.com/clai-sh/clai/runner/ask"
)

// WithTerminalAnswers hands answered each question at a prompt a person
// answered by typing a line at clai's terminal, as it closed, with the line
// and Enter as what it sent (Closed.Sent): what a terminal in line mode
// would have read (its erased characters gone), known secrets masked. A line typed
// where the program does not echo, or with keys other than printable ones,
// Backspace and Enter (a menu's arrows, Esc, Ctrl-U), is never handed.
// answered is called on the run's goroutine and must not block.
func WithTerminalAnswers(answered func(q ask.Question)) Option {
	return func(o *options) { o.terminalAnswer = answered }
}

// maxAnswerLine bounds the line followed after a question closed.
const maxAnswerLine = 4 << 10

// answerLine is the line a person types at clai's terminal to answer q.
type answerLine struct {
	q    ask.Question
	line []byte
}

// followAnswer follows what the person typed, in, for the question that
// closed as they began to type (closed: nil when none did), and hands the
// line once they press Enter.
func (s *session) followAnswer(closed *ask.Question, in []byte, echo bool) {
	if closed != nil && closed.Reason == ask.Prompt {
		s.answering = &answerLine{q: *closed}
	}
	a := s.answering
	if a == nil {
		return
	}
	if !echo {
		s.answering = nil
		return
	}
	for _, c := range in {
		switch {
		case c == '\r' || c == '\n':
			s.answering = nil
			if !utf8.Valid(a.line) {
				return
			}
			line := s.redact.String(string(a.line))
			q := a.q
			closedAs := *q.Closed
			closedAs.Sent = line + "\r"
			q.Closed = &closedAs
			s.o.terminalAnswer(q)
			return
		case c == 0x7f || c == '\b':
			_, n := utf8.DecodeLastRune(a.line)
			a.line = a.line[:len(a.line)-n]
		case c < 0x20 || len(a.line) >= maxAnswerLine:
			// A key of a menu or an editor, or no line at all.
			s.answering = nil
			return
		default:
			a.line = append(a.line, c)
		}
	}
}
