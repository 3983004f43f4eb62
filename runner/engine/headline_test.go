package engine_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
)

// A question's text is the line that asks: above an arrow menu, a dialog's
// prompt; never its last entry, its row of buttons or its line of key hints.
func TestQuestionTextIsTheLineThatAsks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, mode, out, want string
	}{
		{"arrow menu", "stream", "? What next?\r\n❯ Commit\r\n  Show diff", "? What next?"},
		{"arrow menu", "screen", "? What next?\r\n❯ Commit\r\n  Show diff", "? What next?"},
		{"hints below a menu", "screen", colourDialog, "Which colour?"},
		{"hints below a menu", "stream", "Pick one\r\n❯ 1. Red\r\n  2. Blue\r\n↑↓ navigate • ⏎ select", "Pick one"},
	} {
		t.Run(c.name+"/"+c.mode, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: "+c.mode+", settle: 100ms}\ntimeouts: {prompt: 1h}\n", engine.Config{Rows: 24, Cols: 80, Remote: true})
			s.out(time.Millisecond, c.out)
			s.advance(200 * time.Millisecond)
			if q := s.e.Question(); q == nil || q.Text != c.want {
				t.Fatalf("question %+v, want the text %q\n%s", q, c.want, s.timeline())
			}
		})
	}
	for _, f := range []string{"setup-dialog.cast", "setup-whiptail.cast"} {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			r, err := cast.OpenReader("../../testdata/screens/dialog-whiptail/" + f)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			s := newSim(t, header+"settings: {match: screen, settle: 100ms}\ntimeouts: {prompt: 1h}\n", engine.Config{Rows: 24, Cols: 80, Remote: true})
			for s.e.Question() == nil {
				ev, err := r.Next()
				if errors.Is(err, io.EOF) {
					t.Fatalf("no question\n%s", s.timeline())
				} else if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == cast.KindOutput {
					s.out(time.Millisecond, ev.Data)
					s.advance(200 * time.Millisecond)
				}
			}
			if q := s.e.Question(); q.Text != "Pick a colour theme" || len(q.Options) != 3 {
				t.Fatalf("question %q with %d options, want %q with 3", q.Text, len(q.Options), "Pick a colour theme")
			}
		})
	}
}
