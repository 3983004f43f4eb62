package humanloop

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/learned"
)

// kindsDesk is a desk that watches kinds: it records those asked for, and
// its updates end at once.
type kindsDesk struct {
	asked [][]string
	dir   string
}

func (d *kindsDesk) Session() ask.Session { return ask.Session{ID: "s1"} }
func (d *kindsDesk) Screen() ask.Screen   { return ask.Screen{} }
func (d *kindsDesk) Dir() string          { return d.dir }
func (d *kindsDesk) Answer(context.Context, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
}
func (d *kindsDesk) Watch(ctx context.Context) <-chan ask.Update {
	return d.WatchKinds(ctx, "every kind")
}
func (d *kindsDesk) WatchKinds(_ context.Context, kinds ...string) <-chan ask.Update {
	d.asked = append(d.asked, kinds)
	ch := make(chan ask.Update)
	close(ch)
	return ch
}

// The learner, as a run hands it its desk, takes none of clai's decisions
// but the first after a danger hit, with auto_answer too: a run's round
// trips with its program do not wake it.
func TestLearnerTakesNoRoundTrips(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"version: 1\nname: plain\nspawn: {command: [x]}\n",
		"version: 1\nname: auto\nspawn: {command: [x]}\nsuggest: {sources: [answers], auto_answer: {min_count: 2}}\n",
	} {
		pb, findings := playbooks.Parse("p.yaml", []byte(src))
		if pb == nil {
			t.Fatal(findings)
		}
		l := learned.New(filepath.Join(t.TempDir(), "learned.db"), pb)
		desk := &kindsDesk{dir: t.TempDir()}
		learnerWatch(l)(desk)
		l.Close()
		if len(desk.asked) != 1 {
			t.Fatalf("%s: the learner watched %d times, want once", pb.Name, len(desk.asked))
		}
		kinds := desk.asked[0]
		if slices.Contains(kinds, ask.UpdateDecision) || slices.Contains(kinds, ask.UpdateScreen) || slices.Contains(kinds, ask.UpdateState) ||
			!slices.Contains(kinds, ask.UpdateDecisionAfterDanger) {
			t.Fatalf("%s: the learner watches %v, want no decision but the first after a danger hit, no screen, no state", pb.Name, kinds)
		}
	}
}
