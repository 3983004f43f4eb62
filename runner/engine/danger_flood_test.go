package engine_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/pace"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/engine"
)

// TestDangerFloodTakesLinearTime floods an engine with the claude-code preset's
// danger rules with 128 KiB of "git push ", in reads of 4 KiB: it gets through
// within a generous factor of the time regexp takes to search the flood once for
// each danger pattern, where searching again at each place a pattern's literal
// appears took minutes.
func TestDangerFloodTakesLinearTime(t *testing.T) {
	t.Parallel()
	pb, err := playbooks.LoadPreset("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	// In stream matching the danger rules read the whole flood; a screen
	// shows only its last page.
	pb.Settings.Match = playbooks.MatchStream
	flood := bytes.Repeat([]byte("git push "), (128<<10)/len("git push "))
	pace.Within(t, 20, 50*time.Millisecond, 3*time.Minute, func() {
		for _, d := range pb.Danger {
			for _, p := range d.Match.Patterns {
				p.Regexp.FindAllIndex(flood, -1)
			}
		}
	}, func() {
		now := time.Unix(1_700_000_000, 0)
		e := engine.NewEngine(pb, engine.Config{})
		e.Start(now)
		for off := 0; off < len(flood); off += 4 << 10 {
			now = now.Add(time.Millisecond)
			e.Output(now, flood[off:min(off+4<<10, len(flood))])
		}
	})
}
