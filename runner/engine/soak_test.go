package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// soakResult is what a person would have seen of a soak run.
type soakResult struct {
	prompts, questions, refused, answered int
}

// soak runs, in virtual time, a program that draws a clock on its first row
// every 200 ms for ten minutes while it asks three questions, each answered
// two minutes after it opens by a person who saw the screen a second before
// (as a dashboard or a phone shows it), the program working 30 s between
// them. It counts the questions opened and the answers refused.
func soak(tb testing.TB, mode string) soakResult {
	s := newSim(tb, header+"settings: {match: "+mode+", settle: 300ms}\ntimeouts: {prompt: 1h}\n",
		engine.Config{Rows: 24, Cols: 80, Remote: true})
	const (
		tick     = 200 * time.Millisecond
		length   = 10 * time.Minute
		answerIn = 2 * time.Minute
		work     = 30 * time.Second
	)
	prompts := []struct{ line, choose, text string }{
		{line: "Migrate now? [y/N] ", choose: "y"},
		{line: "Name: ", text: "alice"},
		{line: "Continue? [y/N] ", choose: "N"},
	}
	var (
		r       soakResult
		elapsed time.Duration
		next    = time.Duration(0) // when the next prompt shows
		seen    []string           // the screen's hash at each tick, a second back
	)
	s.out(time.Millisecond, "\x1b[2J\x1b[3;1H")
	for elapsed < length {
		if r.prompts < len(prompts) && next >= 0 && elapsed >= next {
			s.out(0, prompts[r.prompts].line)
			r.prompts++
			next = -1
		}
		s.out(tick, fmt.Sprintf("\x1b7\x1b[1;1H\x1b[2Kuptime %.1fs\x1b8", elapsed.Seconds()))
		elapsed += tick
		_, hash := s.e.Shown()
		seen = append(seen, hash)
		q := s.e.Question()
		if q == nil || s.now.Sub(q.AskedAt) < answerIn {
			continue
		}
		p := prompts[r.prompts-1]
		a := ask.Answer{Question: q.ID, ScreenHash: seen[max(0, len(seen)-1-int(time.Second/tick))], By: "alice", Channel: ask.ChannelDashboard}
		if p.text != "" {
			a.Text = &p.text
		} else {
			a.Choose = p.choose
		}
		if _, err := s.answer(a); err != nil {
			r.refused++
			continue
		}
		r.answered++
		echo := p.choose + p.text
		s.out(time.Millisecond, echo+"\r\ngot: "+echo+"\r\n")
		next = elapsed + work
	}
	r.questions = len(s.questions(engine.EventQuestion))
	if st, ok := tb.(*testing.T); ok && r.answered < 3 {
		st.Logf("%s", s.timeline())
	}
	return r
}

// A program that redraws every 200 ms for ten minutes while it asks three
// questions: one question per prompt, and every answer, given on a screen a
// second old, typed.
func TestSoakOneQuestionPerPrompt(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"stream", "screen"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			r := soak(t, mode)
			if r.prompts != 3 || r.questions != 3 || r.answered != 3 || r.refused != 0 {
				t.Fatalf("%d prompts, %d questions, %d answered, %d refused; want 3, 3, 3, 0", r.prompts, r.questions, r.answered, r.refused)
			}
		})
	}
}

// BenchmarkSoakRedrawingScreen is TestSoakOneQuestionPerPrompt measured: the
// time of ten minutes of virtual time, and questions opened per prompt and
// answers refused as what a person sees.
func BenchmarkSoakRedrawingScreen(b *testing.B) {
	for _, mode := range []string{"stream", "screen"} {
		b.Run(mode, func(b *testing.B) {
			var r soakResult
			for b.Loop() {
				r = soak(b, mode)
			}
			b.ReportMetric(float64(r.questions)/float64(r.prompts), "questions/prompt")
			b.ReportMetric(float64(r.refused), "refused")
		})
	}
}
