// Package triage holds a run's questions back from those who tell people of
// them (the notifications, the phone channels) until the answerer has
// decided each: a question it takes is told to nobody, one it leaves to
// people is told as soon as it has said so, with its model's one-line
// summary. Every other update passes at once.
package triage

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// Func decides a question before anyone is told of it: the answerer's model
// may take it (answered: nobody needs telling) and may summarize it in one
// line. It returns when it knows, or when ctx ends.
type Func func(ctx context.Context, q ask.Question) (summary string, answered bool)

// Desk returns desk as those who tell people of its questions see it: their
// Watch hands a question over once decide has left it to people, with its
// summary, or once wait has passed without a decision (wait <= 0: no bound
// but the watch's context). A question decide answered is never handed
// over, nor one that closed before it was decided, nor then its closing.
// The order of what is handed over is the desk's, but that a question comes
// when it was decided. Everything but Watch (and WatchKinds) is desk's own.
func Desk(desk ask.Desk, decide Func, wait time.Duration) ask.Desk {
	return &held{Desk: desk, decide: decide, wait: wait}
}

// held is a desk whose questions wait for the triage.
type held struct {
	ask.Desk
	decide Func
	wait   time.Duration
}

// Watch is the desk's updates, the questions triaged.
func (d *held) Watch(ctx context.Context) <-chan ask.Update {
	return d.filter(ctx, d.Desk.Watch(ctx), nil)
}

// WatchKinds is Watch of the given kinds and the run's end. The desk is
// also asked for the closings, to know of a question that closed before it
// was decided; they are handed over only when asked for.
func (d *held) WatchKinds(ctx context.Context, kinds ...string) <-chan ask.Update {
	if kw, ok := d.Desk.(ask.KindWatcher); ok {
		return d.filter(ctx, kw.WatchKinds(ctx, append(slices.Clone(kinds), ask.UpdateClosed)...), kinds)
	}
	return d.filter(ctx, d.Desk.Watch(ctx), kinds)
}

// filter starts the goroutine that reads in and hands over what it lets
// through, of kinds only (nil: all) and the end.
func (d *held) filter(ctx context.Context, in <-chan ask.Update, kinds []string) <-chan ask.Update {
	ctx, cancel := context.WithCancel(ctx)
	f := &filter{held: d, ctx: ctx, in: in, kinds: kinds, out: make(chan ask.Update, max(cap(in), 1)),
		verdicts: make(chan verdict), pending: map[string]*waiting{}, withheld: map[string]bool{}}
	go func() {
		defer close(f.out)
		defer f.waiters.Wait()
		defer cancel()
		f.run()
	}()
	return f.out
}

// waiting is a question whose decision is awaited.
type waiting struct {
	update ask.Update
	cancel context.CancelFunc
}

// verdict is the decision on a waiting question.
type verdict struct {
	w        *waiting
	summary  string
	answered bool
}

// filter is one watch's goroutine and what it holds back.
type filter struct {
	*held
	ctx      context.Context
	in       <-chan ask.Update
	kinds    []string
	out      chan ask.Update
	verdicts chan verdict
	// pending are the questions awaiting their decision, by id; withheld
	// those answered, whose closing is not handed over either.
	pending  map[string]*waiting
	withheld map[string]bool
	waiters  sync.WaitGroup
}

// run hands over what it lets through until in closes or ctx ends.
func (f *filter) run() {
	for {
		select {
		case u, ok := <-f.in:
			if !ok || !f.take(u) {
				return
			}
		case v := <-f.verdicts:
			if !f.decided(v) {
				return
			}
		case <-f.ctx.Done():
			return
		}
	}
}

// take holds a question back until it is decided, drops the closing of one
// that was, and hands over the rest; false when ctx ended.
func (f *filter) take(u ask.Update) bool {
	switch u.Kind {
	case ask.UpdateQuestion:
		if u.Question != nil {
			f.await(u)
			return true
		}
	case ask.UpdateClosed:
		if u.Question != nil {
			id := u.Question.ID
			if w, ok := f.pending[id]; ok {
				// Nobody was told of it: nobody is told it closed.
				w.cancel()
				delete(f.pending, id)
				return true
			}
			if f.withheld[id] {
				delete(f.withheld, id)
				return true
			}
		}
	case ask.UpdateEnd:
		// The questions still undecided have gone with the run.
		for id, w := range f.pending {
			w.cancel()
			delete(f.pending, id)
		}
		clear(f.withheld)
	}
	return f.handOver(u)
}

// await asks decide about u's question off the filter's goroutine.
func (f *filter) await(u ask.Update) {
	id := u.Question.ID
	if w, ok := f.pending[id]; ok {
		w.cancel()
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if f.wait > 0 {
		ctx, cancel = context.WithTimeout(f.ctx, f.wait)
	} else {
		ctx, cancel = context.WithCancel(f.ctx)
	}
	w := &waiting{update: u, cancel: cancel}
	f.pending[id] = w
	f.waiters.Add(1)
	go func() {
		defer f.waiters.Done()
		defer cancel()
		summary, answered := f.decide(ctx, *u.Question)
		select {
		case f.verdicts <- verdict{w: w, summary: summary, answered: answered}:
		case <-f.ctx.Done():
		}
	}()
}

// decided hands over a question left to people, with its summary, unless it
// closed or was asked again meanwhile; false when ctx ended.
func (f *filter) decided(v verdict) bool {
	id := v.w.update.Question.ID
	if f.pending[id] != v.w {
		return true
	}
	delete(f.pending, id)
	if v.answered {
		f.withheld[id] = true
		return true
	}
	u := v.w.update
	q := *u.Question
	if v.summary != "" {
		q.Summary = v.summary
	}
	u.Question = &q
	return f.handOver(u)
}

// handOver gives u to the watcher if it asked for its kind; false when ctx
// ended first.
func (f *filter) handOver(u ask.Update) bool {
	if f.kinds != nil && u.Kind != ask.UpdateEnd && !f.asked(u.Kind) {
		return true
	}
	select {
	case f.out <- u:
		return true
	case <-f.ctx.Done():
		return false
	}
}

// asked reports whether the watcher asked for updates of kind: a decision
// too when it asked for ask.UpdateDecisionAfterDanger, which the desk
// thinned out already.
func (f *filter) asked(kind string) bool {
	return slices.Contains(f.kinds, kind) ||
		kind == ask.UpdateDecision && slices.Contains(f.kinds, ask.UpdateDecisionAfterDanger)
}
