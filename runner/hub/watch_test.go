package hub

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/hublink"
)

// TestAWatcherHearsOfTheQuestionOpenNow: a run links with its question
// open, and a channel watches it only after the hello: the watcher is told
// of that question first, so that the channel asks it. A watcher of other
// kinds is not, and a question already closed is not told as open.
func TestAWatcherHearsOfTheQuestionOpenNow(t *testing.T) {
	q := &ask.Question{ID: "q1", Session: "5b43b7f71f74", Text: "Deploy where?"}
	r := newRun("box/5b43b7f71f74", &hublink.Hello{Session: ask.Session{ID: "5b43b7f71f74", Host: "box", Question: q}})
	w := r.WatchKinds(t.Context(), ask.UpdateQuestion, ask.UpdateClosed)
	select {
	case u := <-w:
		if u.Kind != ask.UpdateQuestion || u.Question == nil || u.Question.ID != "q1" {
			t.Fatalf("the watcher was told first %+v", u)
		}
	default:
		t.Fatal("the watcher was not told of the question open when it started")
	}
	ends := r.WatchKinds(t.Context(), ask.UpdateEnd)
	all := r.Watch(t.Context())
	if u, ok := <-all; !ok || u.Kind != ask.UpdateQuestion {
		t.Errorf("a watcher of every kind was told first %+v", u)
	}
	r.end("gone", time.Now())
	for u := range ends {
		if u.Kind != ask.UpdateEnd {
			t.Errorf("a watcher of the end only was told %+v", u)
		}
	}

	closed := *q
	closed.Closed = &ask.Closed{How: ask.Answered}
	r = newRun("box/5b43b7f71f74", &hublink.Hello{Session: ask.Session{ID: "5b43b7f71f74", Host: "box", Question: &closed}})
	select {
	case u := <-r.WatchKinds(t.Context(), ask.UpdateQuestion):
		t.Errorf("a closed question was told as open: %+v", u)
	default:
	}
}
