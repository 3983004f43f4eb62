package askuser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/driver/keys"
	"github.com/clai-sh/clai/runner/engine"
)

// typist types the answer to question n of a call into Claude Code's
// question dialog, as Claude Code 2.1.197 takes it, each keystroke a write
// of its own (two keys in one write are read as neither):
//
//   - an option of a single-choice question: its number, which picks it and
//     goes on to the next question;
//   - options of a multi-select question: the number of each, which ticks
//     it, then Tab, which goes on;
//   - the "Other" text of a single-choice question: the number past the last
//     option (the "Type something" row), the text, then Enter;
//   - the "Other" text of a multi-select question: Down as often as there are
//     options (from the first row to "Type something"), the text, which ticks
//     it, then Tab to the row below and Enter;
//   - after the last question, unless the call is one single-choice
//     question (which its answer submits), the review asks to submit: 1.
//
// The "Other" text waits for the row to show as chosen ("❯ N. … Type
// something"), since a text typed before the row turned into a text field is
// lost; the review's 1 waits for the review.
type typist struct {
	call Call
	n    int
}

// The marks of the dialog the typist waits for: the pointer at the chosen
// row, the placeholder of the "Type something" row, and the review's button.
const (
	pointer     = "❯"
	otherRow    = "Type something"
	submitReady = "Submit answers"
)

func digit(i int) engine.Stroke {
	return engine.Stroke{Keystrokes: keys.Keystrokes{Data: []byte(strconv.Itoa(i))}}
}

func press(k keys.Key) engine.Stroke {
	return engine.Stroke{Keystrokes: keys.Keystrokes{Keys: []keys.Key{k}}}
}

// Strokes returns the keystrokes of a, or why it is refused.
func (t typist) Strokes(a ask.Answer) ([]engine.Stroke, string, *ask.Refusal) {
	q := t.call.Questions[t.n]
	var strokes []engine.Stroke
	var shown string
	var refusal *ask.Refusal
	switch {
	case a.Text != nil:
		strokes, shown, refusal = other(q, *a.Text)
	case a.Choose != "":
		strokes, shown, refusal = choose(q, []string{a.Choose})
	case len(a.Choices) > 0:
		if !q.MultiSelect && len(a.Choices) > 1 {
			return nil, "", bad("%q takes one option, not several", q.Question)
		}
		strokes, shown, refusal = choose(q, a.Choices)
	default:
		return nil, "", bad("an answer is a text, an option to choose, or options to choose")
	}
	if refusal != nil {
		return nil, "", refusal
	}
	if t.n == len(t.call.Questions)-1 && (len(t.call.Questions) > 1 || q.MultiSelect) {
		submit := digit(1)
		submit.Await = []string{pointer + " 1. " + submitReady}
		strokes = append(strokes, submit)
	}
	return strokes, shown, nil
}

// choose ticks or picks options by their labels (exact, else ignoring case).
func choose(q Question, labels []string) ([]engine.Stroke, string, *ask.Refusal) {
	var strokes []engine.Stroke
	var names []string
	picked := map[int]bool{}
	for _, label := range labels {
		i := find(q.Options, label)
		if i < 0 {
			return nil, "", bad("no option %q (the options: %s)", label, optionLabels(q.Options))
		}
		if picked[i] {
			continue
		}
		picked[i] = true
		strokes = append(strokes, digit(i+1))
		names = append(names, strconv.Quote(q.Options[i].Label))
	}
	if q.MultiSelect {
		strokes = append(strokes, press("tab"))
	}
	return strokes, "choose " + strings.Join(names, ", "), nil
}

// other types a text of the person's own in the "Type something" row.
func other(q Question, text string) ([]engine.Stroke, string, *ask.Refusal) {
	if strings.TrimSpace(text) == "" {
		return nil, "", bad("the text is empty")
	}
	if err := ask.CheckText(text); err != nil {
		return nil, "", bad("%s", err)
	}
	var strokes []engine.Stroke
	typed := engine.Stroke{Keystrokes: keys.Keystrokes{Data: []byte(text)},
		Await: []string{fmt.Sprintf("%s %d.", pointer, len(q.Options)+1), otherRow}}
	if q.MultiSelect {
		for range q.Options {
			strokes = append(strokes, press("down"))
		}
		strokes = append(strokes, typed, press("tab"), press("enter"))
	} else {
		strokes = append(strokes, digit(len(q.Options)+1), typed, press("enter"))
	}
	return strokes, "other " + strconv.Quote(text), nil
}

// find returns the index of the option labelled label, exactly, else
// ignoring case; -1 if none is.
func find(options []Option, label string) int {
	fold := -1
	for i, o := range options {
		if o.Label == label {
			return i
		}
		if fold < 0 && strings.EqualFold(o.Label, label) {
			fold = i
		}
	}
	return fold
}

func optionLabels(options []Option) string {
	var labels []string
	for _, o := range options {
		labels = append(labels, o.Label)
	}
	return strings.Join(labels, " | ")
}

func bad(format string, args ...any) *ask.Refusal {
	return &ask.Refusal{Code: ask.RefusedBadAnswer, Reason: fmt.Sprintf(format, args...)}
}
