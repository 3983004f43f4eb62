package runner

import (
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// A watcher that lags loses updates, never blocks the one who publishes, and
// still gets the run's end last, then its channel closes; screen updates
// never take more than half its room, which is left for the others.
func TestDeskLaggingWatcherGetsTheEnd(t *testing.T) {
	t.Parallel()
	d := newDesk(ask.Session{ID: "s"})
	updates := d.Watch(t.Context())
	start := time.Unix(1_700_000_000, 0)
	for i := range 10 * watchBuffer {
		d.observe(start, &engine.Event{Name: engine.EventState, State: engine.Running, At: time.Duration(i)})
		d.screenChanged(start, "running")
	}
	d.finish(start, ask.Screen{}, engine.Result{State: engine.Done})
	var got []ask.Update
	for u := range updates {
		got = append(got, u)
	}
	if len(got) != watchBuffer || got[len(got)-1].Kind != ask.UpdateEnd {
		t.Fatalf("%d updates, the last %+v; want %d, the end last", len(got), got[len(got)-1], watchBuffer)
	}
	screens := 0
	for _, u := range got {
		if u.Kind == ask.UpdateScreen {
			screens++
		}
	}
	if screens > watchBuffer/2 {
		t.Fatalf("%d screen updates: they take more than half the room", screens)
	}
}
