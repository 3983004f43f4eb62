package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// A program that asks the same prompt again after each answer, far more
// times than the screen has rows, asks a new question each time, as soon as
// the prompt settles: once the screen scrolls, each prompt shows on the
// bottom row where the one answered was, but the answer's echo and the lines
// after it were written there first, which no redraw of the answered prompt
// does.
func TestSamePromptAskedAgainAfterEachAnswer(t *testing.T) {
	t.Parallel()
	const asks = 50
	for _, mode := range []string{"stream", "screen"} {
		for _, same := range []bool{false, true} {
			for _, c := range []struct {
				name string
				// writes splits what follows an answer into the program's writes.
				writes func(answer string) []string
			}{
				{"one write", func(a string) []string { return []string{a + "\r\ngot: " + a + "\r\nName: "} }},
				{"echo apart", func(a string) []string { return []string{a + "\r\n", "got: " + a + "\r\nName: "} }},
				{"each apart", func(a string) []string { return []string{a, "\r\n", "got: " + a + "\r\n", "Name: "} }},
			} {
				t.Run(fmt.Sprintf("%s/%s/same answer %t", mode, c.name, same), func(t *testing.T) {
					t.Parallel()
					s := newSim(t, header+"settings: {match: "+mode+", settle: 300ms}\ntimeouts: {prompt: 1h}\n",
						engine.Config{Rows: 24, Cols: 80, Remote: true})
					s.out(time.Millisecond, "Name: ")
					for i := range asks {
						s.advance(400 * time.Millisecond)
						q := s.e.Question()
						if q == nil {
							t.Fatalf("no question 400ms after prompt %d (state %s)\n%s", i+1, s.e.State(), s.timeline())
						}
						if want := fmt.Sprintf("q%d", i+1); q.ID != want || q.Text != "Name:" {
							t.Fatalf("prompt %d asked as %s %q, want %s \"Name:\"", i+1, q.ID, q.Text, want)
						}
						a := fmt.Sprintf("user%d", i+1)
						if same {
							a = "alice"
						}
						if _, err := s.answer(ask.Answer{Question: q.ID, ScreenHash: q.ScreenHash, Text: &a, By: "alice"}); err != nil {
							t.Fatalf("answer %d: %v\n%s", i+1, err, s.timeline())
						}
						if i == asks-1 {
							break
						}
						for _, w := range c.writes(a) {
							s.out(time.Millisecond, w)
						}
					}
					if opened := s.questions(engine.EventQuestion); len(opened) != asks {
						t.Fatalf("%d questions for %d prompts\n%s", len(opened), asks, s.timeline())
					}
				})
			}
		}
	}
}
