package stream_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/stream"
)

// evasion is a drawing of "rm -rf /" that a terminal shows on one line while
// the bytes, with escape sequences simply removed, do not hold it.
type evasion struct{ name, drawn string }

// readEvasions reads testdata/evasions.txt: one drawing a line, as a Go
// string literal, then a tab and its name; lines starting with # are
// comments.
func readEvasions(t *testing.T) []evasion {
	t.Helper()
	f, err := os.Open("testdata/evasions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var list []evasion
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		quoted, name, ok := strings.Cut(line, "\t")
		drawn, err := strconv.Unquote(quoted)
		if !ok || err != nil || name == "" {
			t.Fatalf("testdata/evasions.txt:%d: want a Go string, a tab and a name: %q", n, line)
		}
		list = append(list, evasion{name, drawn})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("testdata/evasions.txt holds no drawing")
	}
	return list
}

// TestStreamShowsWhatATerminalShows checks the stream text of each evasion:
// its last line is the line a terminal shows.
func TestStreamShowsWhatATerminalShows(t *testing.T) {
	t.Parallel()
	for _, c := range readEvasions(t) {
		var s stream.Stripper
		out := string(s.Flush(s.Append(nil, []byte(c.drawn))))
		lines := strings.Split(out, "\n")
		last := strings.TrimRight(lines[len(lines)-1], " ")
		if !strings.HasSuffix(last, "rm -rf /") {
			t.Errorf("%s: stream %q, last line %q", c.name, out, last)
		}
	}
}
