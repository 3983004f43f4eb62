package hub

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/hublink"
)

// joinsTo is a channel of the hub that hands each run that joins it to a
// test.
type joinsTo chan ask.Desk

func (j joinsTo) Name() string { return "test" }
func (j joinsTo) Serve(ctx context.Context, desk ask.Desk) error {
	return errors.New("not served alone")
}
func (j joinsTo) ServeAll(ctx context.Context, joins <-chan ask.Desk) error {
	for {
		select {
		case d := <-joins:
			select {
			case j <- d:
			case <-ctx.Done():
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// startHub serves a hub in dir whose one channel is joined, until the test
// ends, and returns a connection to it.
func startHub(t *testing.T, dir string, joined joinsTo) *hublink.Conn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Run(ctx, Config{Dir: dir, Host: "h", Channels: []Channel{{Name: "test", Channel: joined}}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	for {
		c, err := peer.Dial(ctx, filepath.Join(dir, hublink.SocketName))
		if err == nil {
			conn := hublink.NewConn(c)
			t.Cleanup(func() { _ = conn.Close() })
			return conn
		}
		select {
		case err := <-served:
			t.Fatalf("the hub ended: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestAnAnswerEndsWithTheRun: a run is asked to type an answer and ends
// without replying to the call (its program read the answer and exited
// first): the answer waiting on it returns at once with an error, rather
// than holding the channel that pressed it (and every other press of that
// channel) until its deadline.
func TestAnAnswerEndsWithTheRun(t *testing.T) {
	dir, err := os.MkdirTemp("", "hub-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	joined := make(joinsTo, 1)
	conn := startHub(t, dir, joined)
	now := time.Now()
	q := &ask.Question{ID: "q1", Session: "5b43b7f71f74", Text: "where? [north/south]",
		Options: []ask.Option{{Label: "north"}, {Label: "south"}}, ScreenHash: "s1", AskedAt: now}
	s := ask.Session{ID: "5b43b7f71f74", Name: "alpha", Host: "h", PID: os.Getpid(), State: "manual", Since: now, Started: now, Question: q}
	if err := conn.Write(hublink.Frame{Hello: &hublink.Hello{Version: hublink.Version, Session: s}}); err != nil {
		t.Fatal(err)
	}
	desk := <-joined
	answered := make(chan error, 1)
	go func() {
		_, err := desk.Answer(context.Background(), ask.Answer{Question: "q1", Choose: "north"})
		answered <- err
	}()
	f, err := conn.Read()
	if err != nil || f.Call == nil || f.Call.Answer == nil {
		t.Fatalf("the hub's first frame is no call to answer: %+v, %v", f, err)
	}
	s.Question, s.State = nil, "done"
	if err := conn.Write(hublink.Frame{Update: &hublink.Update{Update: ask.Update{Kind: ask.UpdateEnd, At: time.Now(), State: "done"}, Session: s}}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answered:
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the answer returned %v, not the run's end", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the answer still waits on a run that ended")
	}
}
