// Command secrets shows the secret in $CLAI_SECRET the way -way says (see
// internal/leakcheck: plain, colour, crlf, wrap, split) inside a block a
// playbook matches, reads a line (the answer, which the terminal echoes), then
// shows the secret once more, followed by -filler dots, and waits for the end
// of its input.
//
//	secrets -way colour -cols 80 -filler 500
package main

import (
	"bufio"
	"flag"
	"io"
	"os"
	"strings"

	"github.com/clai-sh/clai/internal/leakcheck"
)

func main() {
	way := flag.String("way", "plain", "how to show the secret")
	cols := flag.Int("cols", 80, "the terminal's width, for -way wrap")
	filler := flag.Int("filler", 0, "dots to print after the secret shown last")
	flag.Parse()
	secret := os.Getenv("CLAI_SECRET")
	write(*way, leakcheck.Block(*way, secret, *cols))
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		return
	}
	write(*way, "\n"+leakcheck.Show(*way, secret)+strings.Repeat(".", *filler)+"\n")
	_, _ = io.Copy(io.Discard, in)
}

// write writes s, in pieces of a few bytes for -way split, each its own write.
func write(way, s string) {
	step := len(s)
	if way == "split" {
		step = 3
	}
	for len(s) > 0 {
		n := min(step, len(s))
		_, _ = os.Stdout.WriteString(s[:n])
		s = s[n:]
	}
}
