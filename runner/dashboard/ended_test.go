package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/sessions"
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
	reg, err := sessions.Open(filepath.Join(shortDir(t), "s"))
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
	list, err := FromRegistry(reg).List(t.Context())
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
	src := &registrySource{reached: map[string]reached{}}
	for id, socket := range map[string]string{"gone": filepath.Join(dir, "gone.sock"), "refused": refused, "hangs-up": hangsUp} {
		src.reached[id] = reached{socket: socket, client: sessions.NewClient(socket)}
	}
	for id, want := range map[string]bool{"gone": true, "refused": true, "unlisted": true, "hangs-up": false} {
		_, err := src.Screen(t.Context(), id)
		if err == nil || errors.Is(err, errEnded) != want {
			t.Errorf("%s: screen: %v, ended %v", id, err, want)
		}
		err = src.Events(t.Context(), id, func(ask.Update) bool { return true })
		if err == nil || errors.Is(err, errEnded) != want {
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

// failing is a session with a question open whose screen and updates
// cannot be had, each with err: its stream of updates fails once its
// screen was tried.
type failing struct {
	*fakeSource
	err   error
	tried chan struct{}
}

func (f failing) Screen(context.Context, string) (ask.Screen, error) { return ask.Screen{}, f.err }

func (f failing) Events(ctx context.Context, _ string, _ func(ask.Update) bool) error {
	select {
	case <-f.tried:
		return f.err
	case <-ctx.Done():
		return nil
	}
}

// logs keeps what a hub logs.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// watchFailing has a hub watch a session failing with err, and returns
// what it logged once the session's screen was tried and its updates
// given up, and the view it then showed.
func watchFailing(t *testing.T, err error) ([]string, view) {
	t.Helper()
	var l logs
	src := failing{newFakeSource(), err, make(chan struct{})}
	h := newHub(src, l.logf)
	var once sync.Once
	h.fetched = func(_ string, got error) {
		if !errors.Is(got, err) {
			t.Errorf("the screen's fetch failed with %v, want %v", got, err)
		}
		once.Do(func() { close(src.tried) })
	}
	sub, _, ok := h.subscribe()
	if !ok {
		t.Fatal("no page may watch")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.poll(ctx)
	for m := range sub.ch {
		var v view
		if err := json.Unmarshal(m.data, &v); err != nil {
			t.Fatal(err)
		}
		if v.Ended || v.Error != "" {
			return l.all(), v
		}
	}
	t.Fatal("the pages were dropped")
	return nil, view{}
}

// TestASessionThatEndedIsNotAnError: a session whose socket went with its
// run is shown ended (gone), and nothing is logged of it.
func TestASessionThatEndedIsNotAnError(t *testing.T) {
	t.Parallel()
	logged, v := watchFailing(t, fmt.Errorf("session /run/s1.sock: %w: dial unix /run/s1.sock: connect: no such file or directory", errEnded))
	if len(logged) != 0 {
		t.Errorf("logged %q, want nothing", logged)
	}
	if !v.Ended || v.Outcome != "gone" || v.Error != "" {
		t.Errorf("the page shows %+v, want it gone with no error", v)
	}
}

// TestASessionsErrorIsLogged: a session that cannot be reached for another
// reason is logged, and the page says so.
func TestASessionsErrorIsLogged(t *testing.T) {
	t.Parallel()
	logged, v := watchFailing(t, errors.New("session /run/s1.sock: 500 Internal Server Error"))
	if len(logged) != 2 {
		t.Errorf("logged %q, want the screen's and the updates' errors", logged)
	}
	if v.Ended || v.Error == "" {
		t.Errorf("the page shows %+v, want it unreachable", v)
	}
}
