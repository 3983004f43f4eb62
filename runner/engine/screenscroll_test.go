package engine

import (
	"bytes"
	"testing"
)

// The rows a screen scrolled by are those the stripper saw scroll off,
// where they line up: rows that repeat line up at a smaller shift as well.
// A count that lines the rows up worse than half is not taken, and the
// shift is the one that lines up the most rows.
func TestScrolledLinesRowsUpByTheRowsScrolledOff(t *testing.T) {
	t.Parallel()
	rows := func(s string) [][]byte { return bytes.Split([]byte(s), []byte("\n")) }
	repeats := rows("Name: a\ngot: a\nName: a\ngot: a\nName: ")
	repeatsAgain := rows("Name: a\ngot: a\nName: a\ngot: a\nName: ")
	for _, c := range []struct {
		name     string
		was, now [][]byte
		off      uint64
		want     int
	}{
		{"repeats, not seen to scroll", repeats, repeatsAgain, 0, 0},
		{"repeats, seen to scroll by two", repeats, repeatsAgain, 2, 2},
		{"all scrolled off", repeats, repeatsAgain, 9, len(repeats)},
		{"a count that lines nothing up", rows("a\nb\nc\nd"), rows("b\nc\nd\ne"), 2, 1},
		{"a count that lines up", rows("a\nb\nc\nd"), rows("c\nd\ne\nf"), 2, 2},
	} {
		if got := scrolled(c.was, c.now, c.off); got != c.want {
			t.Errorf("%s: scrolled %d, want %d", c.name, got, c.want)
		}
	}
}
