package triage

import (
	"context"
	"slices"

	"github.com/clai-sh/clai/runner/ask"
)

// All returns the Func of several who may answer a run's questions (the
// answerer, auto_answer), asked together: a question is answered as soon as
// one of them answered it, and is left to people once each has left it (or
// ctx ended), with the first summary in the order given. A nil Func is left
// out; All returns nil when none is left, and the one left alone.
func All(funcs ...Func) Func {
	funcs = slices.DeleteFunc(slices.Clone(funcs), func(f Func) bool { return f == nil })
	switch len(funcs) {
	case 0:
		return nil
	case 1:
		return funcs[0]
	}
	return func(ctx context.Context, q ask.Question) (string, bool) {
		return decideAll(ctx, q, funcs)
	}
}

// decision is what the i-th Func of All decided.
type decision struct {
	i        int
	summary  string
	answered bool
}

// decideAll asks each of funcs about q at once; the first that answered
// ends the others' waits.
func decideAll(ctx context.Context, q ask.Question, funcs []Func) (string, bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	decisions := make(chan decision, len(funcs))
	for i, f := range funcs {
		go func() {
			summary, answered := f(ctx, q)
			decisions <- decision{i: i, summary: summary, answered: answered}
		}()
	}
	summaries := make([]string, len(funcs))
	for range funcs {
		d := <-decisions
		if d.answered {
			return d.summary, true
		}
		summaries[d.i] = d.summary
	}
	for _, s := range summaries {
		if s != "" {
			return s, false
		}
	}
	return "", false
}
