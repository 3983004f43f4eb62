package sessions

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
)

// stillDesk is a session that stands still: it asks nothing and says
// nothing until its watcher goes.
type stillDesk struct{ session ask.Session }

func (d stillDesk) Session() ask.Session { return d.session }
func (stillDesk) Screen() ask.Screen     { return ask.Screen{Text: "$ ", Hash: "h"} }
func (stillDesk) Answer(context.Context, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedNoQuestion, Reason: "no question is open"}
}
func (stillDesk) Watch(ctx context.Context) <-chan ask.Update {
	ch := make(chan ask.Update)
	go func() { <-ctx.Done(); close(ch) }()
	return ch
}

// shortDir is a fresh folder with a path short enough for sockets.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// TestARunWhoseSocketIsGoneIsNotListed: a run's entry outlives its socket
// for a moment as it ends; the dashboard does not list it as running (and
// so does not try to follow it).
func TestARunWhoseSocketIsGoneIsNotListed(t *testing.T) {
	t.Parallel()
	reg, err := Open(filepath.Join(shortDir(t), "s"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, id := range []string{"live", "ending"} {
		e, err := reg.Register(stillDesk{ask.Session{ID: id, Name: id, State: "running"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		if id == "ending" {
			if err := os.Remove(e.Socket()); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, id)
	}
	list, err := NewSource(reg).List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		got = append(got, s.ID)
	}
	if !slices.Equal(got, ids[:1]) {
		t.Fatalf("listed %q, want only the live session", got)
	}
}

// TestASessionsEndIsToldApartFromAnError: a request to a session whose
// socket is gone, or has nobody listening, or that is no longer listed,
// says the run ended (an answer is refused: ended); one that fails
// otherwise says what went wrong.
func TestASessionsEndIsToldApartFromAnError(t *testing.T) {
	t.Parallel()
	dir := shortDir(t)
	refused := filepath.Join(dir, "refused.sock")
	ln, err := net.Listen("unix", refused)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = ln.Close()
	hangsUp := filepath.Join(dir, "hangs-up.sock")
	hl, err := net.Listen("unix", hangsUp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hl.Close() })
	go func() {
		for {
			c, err := hl.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	src := &Source{reached: map[string]reached{}}
	for id, socket := range map[string]string{"gone": filepath.Join(dir, "gone.sock"), "refused": refused, "hangs-up": hangsUp} {
		src.reached[id] = reached{socket: socket, client: NewClient(socket)}
	}
	for id, want := range map[string]bool{"gone": true, "refused": true, "unlisted": true, "hangs-up": false} {
		_, err := src.Screen(t.Context(), id)
		if err == nil || errors.Is(err, ask.ErrEnded) != want {
			t.Errorf("%s: screen: %v, ended %v", id, err, want)
		}
		err = src.Events(t.Context(), id, func(ask.Update) bool { return true })
		if err == nil || errors.Is(err, ask.ErrEnded) != want {
			t.Errorf("%s: events: %v, ended %v", id, err, want)
		}
		// An answer to a run that ended is refused as the run refuses it.
		_, err = src.Answer(t.Context(), id, ask.Answer{Question: "q1", Choose: "y"})
		var refusal *ask.Refusal
		if err == nil || (errors.As(err, &refusal) && refusal.Code == ask.RefusedEnded) != want {
			t.Errorf("%s: answer: %v, ended %v", id, err, want)
		}
	}
}
