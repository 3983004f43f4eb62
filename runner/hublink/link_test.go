package hublink

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// endingDesk is a run whose program reads the answer typed and exits at
// once: its end is published before Answer returns.
type endingDesk struct {
	session ask.Session
	updates chan ask.Update
	// hubSawEnd closes once the hub has the run's end.
	hubSawEnd chan struct{}
}

func (d *endingDesk) Session() ask.Session                        { return d.session }
func (d *endingDesk) Screen() ask.Screen                          { return ask.Screen{} }
func (d *endingDesk) Watch(ctx context.Context) <-chan ask.Update { return d.updates }

func (d *endingDesk) Answer(ctx context.Context, a ask.Answer) (ask.Sent, error) {
	d.updates <- ask.Update{Kind: ask.UpdateEnd, At: time.Now(), State: "done"}
	close(d.updates)
	// Were the end sent on at once, the hub would have it while the
	// answer is still being typed; a while is given for it to show.
	select {
	case <-d.hubSawEnd:
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
	}
	return ask.Sent{Sent: a.Choose}, nil
}

// TestTheReplyGoesBeforeTheEnd: the hub calls a run to type an answer, and
// the run's program exits as soon as it reads it: the hub gets the reply
// to its call before the run's end, so that the press is told what was
// sent rather than left waiting on a run that is gone.
func TestTheReplyGoesBeforeTheEnd(t *testing.T) {
	dir, err := os.MkdirTemp("", "hublink-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	socket := filepath.Join(dir, SocketName)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	desk := &endingDesk{session: ask.Session{ID: "5b43b7f71f74", Name: "alpha", State: "manual"},
		updates: make(chan ask.Update, 4), hubSawEnd: make(chan struct{})}
	l := New(Options{Socket: socket})
	l.Watch(desk)
	defer l.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	conn := NewConn(c)
	defer conn.Close()
	if f, err := conn.ReadWithin(time.Minute); err != nil || f.Hello == nil {
		t.Fatalf("the run's first frame is no hello: %+v, %v", f, err)
	}
	if err := conn.Write(Frame{Call: &Call{ID: 7, Answer: &ask.Answer{Question: "q1", Choose: "north"}}}); err != nil {
		t.Fatal(err)
	}
	var order []string
	for {
		f, err := conn.ReadWithin(time.Minute)
		if err != nil {
			break
		}
		switch {
		case f.Reply != nil:
			order = append(order, "reply")
			if f.Reply.ID != 7 || f.Reply.Sent == nil || f.Reply.Sent.Sent != "north" {
				t.Errorf("the reply is %+v", f.Reply)
			}
		case f.Update != nil && f.Update.Update.Kind == ask.UpdateEnd:
			order = append(order, "end")
			close(desk.hubSawEnd)
		}
	}
	if len(order) != 2 || order[0] != "reply" || order[1] != "end" {
		t.Errorf("the hub got %v, want [reply end]", order)
	}
}
