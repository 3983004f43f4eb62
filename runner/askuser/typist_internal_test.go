package askuser

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// render shows keystrokes as a terminal gets them, one write a field, with
// what a write waits for in braces before it.
func render(strokes []engine.Stroke) string {
	var parts []string
	for _, s := range strokes {
		part := strings.NewReplacer("\x1b[B", "↓", "\t", "⇥", "\r", "⏎").Replace(string(s.AppendBytes(nil)))
		if len(s.Await) > 0 {
			part = "{" + strings.Join(s.Await, "+") + "}" + part
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// The keystrokes of each kind of answer, as Claude Code 2.1.197's dialog
// took them against the real program (docs/presets.md): each key a write of
// its own; the review's 1 after the last question unless one single-choice
// question was answered.
func TestTypistStrokes(t *testing.T) {
	t.Parallel()
	single := Question{Question: "Which colour?", Options: []Option{{Label: "Red"}, {Label: "Blue"}}}
	multi := Question{Question: "Which tools?", MultiSelect: true, Options: []Option{{Label: "Lint"}, {Label: "Format"}, {Label: "Test"}}}
	text := func(s string) *string { return &s }
	cases := []struct {
		name  string
		call  []Question
		n     int
		a     ask.Answer
		want  string
		shown string
	}{
		{"one single choice", []Question{single}, 0, ask.Answer{Choose: "Blue"}, "2", `choose "Blue"`},
		{"a label in any case", []Question{single}, 0, ask.Answer{Choices: []string{"red"}}, "1", `choose "Red"`},
		{"one single choice, other", []Question{single}, 0, ask.Answer{Text: text("Green, please")}, "3 {❯ 3.+Type something}Green, please ⏎", `other "Green, please"`},
		{"one multi-select", []Question{multi}, 0, ask.Answer{Choices: []string{"Lint", "Test", "Lint"}}, "1 3 ⇥ {❯ 1. Submit answers}1", `choose "Lint", "Test"`},
		{"one multi-select, other", []Question{multi}, 0, ask.Answer{Text: text("Vet")}, "↓ ↓ ↓ {❯ 4.+Type something}Vet ⇥ ⏎ {❯ 1. Submit answers}1", `other "Vet"`},
		{"first of two", []Question{multi, single}, 0, ask.Answer{Choices: []string{"Format"}}, "2 ⇥", `choose "Format"`},
		{"last of two", []Question{multi, single}, 1, ask.Answer{Choose: "Blue"}, "2 {❯ 1. Submit answers}1", `choose "Blue"`},
		{"last of two, other", []Question{multi, single}, 1, ask.Answer{Text: text("GPL")}, "3 {❯ 3.+Type something}GPL ⏎ {❯ 1. Submit answers}1", `other "GPL"`},
	}
	for _, c := range cases {
		strokes, shown, refusal := typist{call: Call{ID: "t", Questions: c.call}, n: c.n}.Strokes(c.a)
		if refusal != nil || render(strokes) != c.want || shown != c.shown {
			t.Errorf("%s: %q, %q, %v; want %q, %q", c.name, render(strokes), shown, refusal, c.want, c.shown)
		}
	}
	for _, a := range []ask.Answer{
		{Choose: "Green"},
		{Choices: []string{"Red", "Blue"}},
		{Text: text("  ")},
		{Text: text("two\nlines")},
		{Text: text("Green\u009b2J")},
		{Text: text("Green\u0085")},
		{Text: text("\u202eGreen")},
		{Text: text("Gr\u200been")},
		{},
	} {
		if _, _, refusal := (typist{call: Call{Questions: []Question{single}}}).Strokes(a); refusal == nil || refusal.Code != ask.RefusedBadAnswer {
			t.Errorf("%+v: %v, want bad-answer", a, refusal)
		}
	}
}
