package runner

import (
	"context"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/questions"
)

// WithQuestions starts source with the run (see questions.Source). Several may
// be given.
func WithQuestions(source questions.Source) Option {
	return func(o *options) { o.sources = append(o.sources, source) }
}

// closers are the channels that hear of the source's questions closing, by
// id; the desk's mutex guards them.
type closers map[string]chan ask.Question

// Ask opens x in the session's loop.
func (d *desk) Ask(ctx context.Context, x engine.External) (string, <-chan ask.Question) {
	var id string
	ch := make(chan ask.Question, 1)
	d.do(ctx, func() {
		actions, opened := d.sess.eng().Ask(d.sess.o.clock.Now(), x)
		if opened != "" {
			id = opened
			d.mu.Lock()
			d.closing[id] = ch
			d.mu.Unlock()
		}
		d.sess.apply(actions)
	})
	if id == "" {
		return "", nil
	}
	return id, ch
}

// Withdraw closes the question id in the session's loop.
func (d *desk) Withdraw(ctx context.Context, id, how string) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.eng().Withdraw(d.sess.o.clock.Now(), id, how))
	})
}

// ClaimDialog claims the program's dialog id in the session's loop.
func (d *desk) ClaimDialog(ctx context.Context, id string, marks []string) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.eng().ClaimDialog(d.sess.o.clock.Now(), id, marks))
	})
}

// ReleaseDialog releases the program's dialog id in the session's loop.
func (d *desk) ReleaseDialog(ctx context.Context, id string) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.eng().ReleaseDialog(d.sess.o.clock.Now(), id))
	})
}

// ExpectDialogs sets what the source's dialogs show, in the session's loop.
func (d *desk) ExpectDialogs(ctx context.Context, marks []string, wait time.Duration) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.eng().ExpectDialogs(d.sess.o.clock.Now(), marks, wait))
	})
}

// Dir is the program's working folder.
func (d *desk) Dir() string { return d.dir }

// closedQuestion tells a source its question q closed; d.mu is held.
func (d *desk) closedQuestion(q *ask.Question) {
	if ch, ok := d.closing[q.ID]; ok {
		delete(d.closing, q.ID)
		ch <- *q
	}
}

// startSources starts the run's question sources; the function returned
// ends them and waits for them.
func (s *session) startSources(ctx context.Context) (stop func()) {
	if len(s.o.sources) == 0 || s.desk == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, source := range s.o.sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			source(ctx, s.desk)
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
