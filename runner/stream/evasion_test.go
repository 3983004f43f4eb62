package stream_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/evasions"
	"github.com/clai-sh/clai/runner/stream"
)

// evasion is a drawing of "rm -rf /" that a terminal shows on one line while
// the bytes, with escape sequences simply removed, do not hold it.
// readEvasions reads testdata/evasions.txt (see package evasions).
func readEvasions(t *testing.T) []evasions.Drawing {
	t.Helper()
	list, err := evasions.Read("testdata/evasions.txt")
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestStreamShowsWhatATerminalShows checks the stream text of each evasion:
// its last line is the line a terminal shows.
func TestStreamShowsWhatATerminalShows(t *testing.T) {
	t.Parallel()
	for _, c := range readEvasions(t) {
		var s stream.Stripper
		out := string(s.Flush(s.Append(nil, []byte(c.Drawn))))
		lines := strings.Split(out, "\n")
		last := strings.TrimRight(lines[len(lines)-1], " ")
		if !strings.HasSuffix(last, "rm -rf /") {
			t.Errorf("%s: stream %q, last line %q", c.Name, out, last)
		}
	}
}
