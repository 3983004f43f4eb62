package runner

import (
	"context"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// Questions is a running session as a question source reaches it: a source
// follows a channel through which the program asks questions of its own (not
// on its screen), opens a question of the run for each, and closes it when
// the program has gone on. Answers from any channel reach the source's
// question through the Desk's Answer, refused there when closed; the source's
// Typist turns them into the keys the program's dialog takes, typed through
// the path of every answer. Its methods may be called from any goroutine.
type Questions interface {
	ask.Desk
	// Ask opens x as the run's open question (one the engine opened
	// closes as moved on) and returns its id, and a channel that receives
	// the question once it closed: answered, withdrawn, or the run ended.
	// Once the run has ended, the id is "" and the channel nil.
	Ask(ctx context.Context, x engine.External) (id string, closed <-chan ask.Question)
	// Withdraw closes the question id as how says (ask.MovedOn: the program
	// went on), if it is still open.
	Withdraw(ctx context.Context, id, how string)
	// ClaimDialog tells the run that the source asks the questions of the
	// program's dialog id, which shows marks on its screen (the start of
	// each question, at the start of a line): the run opens no prompt
	// question of its own for a screen that shows it (one open closes as
	// moved on), until ReleaseDialog(id) and the screen no longer shows it.
	ClaimDialog(ctx context.Context, id string, marks []string)
	// ReleaseDialog ends the claim of the dialog id: the program is done
	// with it.
	ReleaseDialog(ctx context.Context, id string)
	// ExpectDialogs tells the run what the program's dialogs that the source
	// asks about show before the source knows of them (a line that begins
	// with one of marks): a prompt question for such a screen waits up to
	// wait for the source's claim, then opens as any other.
	ExpectDialogs(ctx context.Context, marks []string, wait time.Duration)
	// Dir is the program's working folder.
	Dir() string
}

// A QuestionSource follows a channel of the program's questions for as long
// as ctx lives, asking them through q. It is started once the program
// started, on a goroutine of its own, and the run waits for it to return
// once ctx ended with the run.
type QuestionSource func(ctx context.Context, q Questions)

// WithQuestions starts source with the run (see QuestionSource). Several may
// be given.
func WithQuestions(source QuestionSource) Option {
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
		actions, opened := d.sess.engine.Ask(d.sess.o.clock.Now(), x)
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
		d.sess.apply(d.sess.engine.Withdraw(d.sess.o.clock.Now(), id, how))
	})
}

// ClaimDialog claims the program's dialog id in the session's loop.
func (d *desk) ClaimDialog(ctx context.Context, id string, marks []string) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.engine.ClaimDialog(d.sess.o.clock.Now(), id, marks))
	})
}

// ReleaseDialog releases the program's dialog id in the session's loop.
func (d *desk) ReleaseDialog(ctx context.Context, id string) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.engine.ReleaseDialog(d.sess.o.clock.Now(), id))
	})
}

// ExpectDialogs sets what the source's dialogs show, in the session's loop.
func (d *desk) ExpectDialogs(ctx context.Context, marks []string, wait time.Duration) {
	d.do(ctx, func() {
		d.sess.apply(d.sess.engine.ExpectDialogs(d.sess.o.clock.Now(), marks, wait))
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
