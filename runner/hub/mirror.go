package hub

import (
	"context"

	"github.com/clai-sh/clai/runner/ask"
)

// Named is desk as this machine's clai sessions, clai answer and
// dashboard name a joined machine's run: its session's id is HOST/ID, and
// so is its questions'. Answers go to the run as they are.
func Named(desk ask.Desk) ask.Desk { return named{desk} }

type named struct{ ask.Desk }

func (n named) Session() ask.Session {
	s := n.Desk.Session()
	s.ID = hostID(s.Host, s.ID)
	if s.Question != nil {
		q := *s.Question
		q.Session = s.ID
		s.Question = &q
	}
	return s
}

func (n named) Watch(ctx context.Context) <-chan ask.Update { return n.WatchKinds(ctx) }

func (n named) WatchKinds(ctx context.Context, kinds ...string) <-chan ask.Update {
	var in <-chan ask.Update
	if kw, ok := n.Desk.(ask.KindWatcher); ok {
		in = kw.WatchKinds(ctx, kinds...)
	} else {
		in = n.Desk.Watch(ctx)
	}
	out := make(chan ask.Update, watchBuffer)
	go func() {
		defer close(out)
		for u := range in {
			if u.Question != nil {
				q := *u.Question
				q.Session = hostID(n.Desk.Session().Host, q.Session)
				u.Question = &q
			}
			select {
			case out <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// hostID is HOST/ID, the name of a joined machine's session here.
func hostID(host, id string) string { return host + "/" + id }
