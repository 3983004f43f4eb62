package screen

import (
	"strconv"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/pace"
)

// TestRepeatHeldToAScreenful: a repeat (REP) of more than a screenful repeats
// a screenful, as tmux does: on a 2x3 screen, "x" repeated 10 more times shows
// what "x" and 6 more show.
func TestRepeatHeldToAScreenful(t *testing.T) {
	t.Parallel()
	got, want := New(2, 3), New(2, 3)
	got.Write([]byte("x\x1b[10b"))
	want.Write([]byte("xxxxxxx"))
	gr, gc := got.Cursor()
	wr, wc := want.Cursor()
	if got.Text() != want.Text() || gr != wr || gc != wc {
		t.Fatalf("shows %q, cursor %d,%d; want %q, cursor %d,%d", got.Text(), gr, gc, want.Text(), wr, wc)
	}
}

// TestHugeCountsEndQuickly: a count of 2^31-1 at most (what the parser reads)
// on the sequences the emulator carries out once per count (ECH, CHT, CBT,
// REP) takes about as long as a count of a row or a screenful, and shows the
// same; carried out in full it took seconds to minutes for a few bytes.
func TestHugeCountsEndQuickly(t *testing.T) {
	t.Parallel()
	const rows, cols, huge = 24, 80, 1_999_999_999
	for _, c := range []struct {
		name, text, final string
		most              int
	}{
		{"ECH", "some text\r", "X", cols},
		{"CHT", "x", "I", cols},
		{"CBT", "\x1b[80Gx", "Z", cols},
		{"REP", "x", "b", rows * cols},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			feed := func(count int) *Screen {
				s := New(rows, cols)
				s.Write([]byte(c.text + "\x1b[" + strconv.Itoa(count) + c.final + "!"))
				return s
			}
			pace.Within(t, 20, 20*time.Millisecond, 3*time.Minute, func() { feed(c.most) }, func() { feed(huge) })
			if got, want := feed(huge).Text(), feed(c.most).Text(); got != want {
				t.Fatalf("a count of %d shows %q, one of %d %q", huge, got, c.most, want)
			}
		})
	}
}
