package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// drawScattered draws text at column at with its characters placed in a random
// order, reaching each by a random horizontal motion, over random garbage, with
// styles and aborted sequences between them.
func drawScattered(rng *rand.Rand, text string, at int) string {
	var b strings.Builder
	garbage := []string{"xx", "-", "ZZZ", "/", " ", "rm"}
	for range rng.IntN(4) {
		fmt.Fprintf(&b, "\x1b[%dG%s", 1+rng.IntN(at+len(text)), garbage[rng.IntN(len(garbage))])
	}
	col := -1 // unknown
	for _, k := range rng.Perm(len(text)) {
		to := at + k
		switch m := rng.IntN(5); {
		case m == 0 && col >= 0 && col >= to:
			b.WriteString(strings.Repeat("\b", col-to))
		case m == 1 && col >= 0 && col < to:
			fmt.Fprintf(&b, "\x1b[%dC", to-col)
		case m == 2 && col >= 0 && col > to:
			fmt.Fprintf(&b, "\x1b[%dD", col-to)
		case m == 3:
			fmt.Fprintf(&b, "\r\x1b[%da", to)
		default:
			fmt.Fprintf(&b, "\x1b[%dG", to+1)
		}
		if rng.IntN(4) == 0 {
			b.WriteString([]string{"\x1b[1;31m", "\x1b[\x18", "\x1b]0;t\x1a", "\x1b[0m"}[rng.IntN(4)])
		}
		b.WriteByte(text[k])
		col = to + 1
	}
	return b.String()
}

// TestDangerInStreamFindsWhatScreenFinds runs the engine in both modes on
// commands drawn character by character in random order: whenever the danger
// rule fires on the screen, it fires on the stream, and the prompt that follows
// is not answered.
func TestDangerInStreamFindsWhatScreenFinds(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {match: %s, min_send_interval: 0s, settle: 50ms}
rules:
  - {name: proceed, match: "Proceed? [y/n]", line: "y", limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`
	commands := []string{"rm -rf /", "rm  -rf / ", "sudo rm -rf / now", "rm -rf /tmp", "rm -rf"}
	rng := rand.New(rand.NewPCG(21, 22))
	dangerous := 0
	for range 300 {
		drawing := drawScattered(rng, commands[rng.IntN(len(commands))], rng.IntN(20)) + "\r\nProceed? [y/n] "
		var chunks []string
		for rest := drawing; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			chunks = append(chunks, rest[:k])
			rest = rest[k:]
		}
		hits := map[string]int{}
		sent := map[string][]string{}
		for _, mode := range []string{"stream", "screen"} {
			s := newSim(t, fmt.Sprintf(pb, mode), engine.Config{Rows: 24, Cols: 80})
			for _, c := range chunks {
				s.out(time.Millisecond, c)
			}
			s.advance(time.Second)
			hits[mode], sent[mode] = s.dangerHits("wipe"), s.sent
		}
		if hits["screen"] > 0 {
			dangerous++
			if hits["stream"] == 0 || len(sent["stream"]) > 0 {
				t.Fatalf("drawing %q in chunks %q: the screen finds danger, the stream %d hits and sends %q",
					drawing, chunks, hits["stream"], sent["stream"])
			}
		}
	}
	if dangerous < 75 {
		t.Fatalf("only %d of the drawings were dangerous on screen", dangerous)
	}
}
