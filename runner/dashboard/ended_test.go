package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
)

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
	logged, v := watchFailing(t, fmt.Errorf("session /run/s1.sock: %w: dial unix /run/s1.sock: connect: no such file or directory", ask.ErrEnded))
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
