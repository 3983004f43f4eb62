package hub

import (
	"context"
	"errors"
	"net"
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

// TestAnAnswerUnrepliedAtTheRunsEndFails: a press's answer is called of a
// run, which types it and ends before its reply reaches the hub: the call
// fails at the run's end, and the channel that waits on it goes on to the
// next press, instead of waiting for a reply that never comes.
func TestAnAnswerUnrepliedAtTheRunsEndFails(t *testing.T) {
	hubEnd, runEnd := net.Pipe()
	defer runEnd.Close()
	q := &ask.Question{ID: "q1", Session: "5b43b7f71f74", Text: "Deploy where?"}
	hello := &hublink.Hello{Session: ask.Session{ID: "5b43b7f71f74", Host: "box", Question: q}}
	r := newRun("box/5b43b7f71f74", hello)
	r.attach(hublink.NewConn(hubEnd), hello, time.Now())
	answered := make(chan error, 1)
	go func() {
		_, err := r.Answer(t.Context(), ask.Answer{Question: "q1", Choose: "prod"})
		answered <- err
	}()
	f, err := hublink.NewConn(runEnd).Read()
	if err != nil || f.Call == nil || f.Call.Answer == nil {
		t.Fatalf("the run was called %+v (%v)", f, err)
	}
	r.update(&hublink.Update{Update: ask.Update{Kind: ask.UpdateEnd, At: time.Now()}, Session: hello.Session})
	if err := <-answered; err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the answer unreplied at the run's end: %v", err)
	}
	var refusal *ask.Refusal
	if _, err := r.Answer(t.Context(), ask.Answer{Question: "q1"}); !errors.As(err, &refusal) || refusal.Code != ask.RefusedEnded {
		t.Errorf("an answer after the run's end: %v", err)
	}
}
