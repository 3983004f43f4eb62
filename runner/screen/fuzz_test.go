package screen

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/clai-sh/clai/runner/cast"
)

// seedOutput is how much of each recording's output seeds FuzzScreen: enough
// for a program's first screen, little enough that the seeds run in a moment.
const seedOutput = 1 << 10

// FuzzScreen feeds any bytes to a screen of a size the seed picks, whole, a
// byte at a time and in pieces the seed cuts: none panics or hangs, and all
// three show the same text, with and without the blanks before the cursor,
// put the cursor in the same place and answer the same queries. The seeds are
// the start of the recorded programs' output and sequences a program sends.
//
// A cut may fall anywhere, inside a sequence or a character too, except
// between the characters of one grapheme cluster (a letter and its combining
// mark): the emulator ends a cluster with each write, so a mark that comes in
// the next write is not joined to its letter.
func FuzzScreen(f *testing.F) {
	casts, err := filepath.Glob("../../testdata/screens/*/*.cast")
	if err != nil {
		f.Fatal(err)
	}
	for i, file := range casts {
		f.Add(recordedOutput(f, file), seedOfSize(23-i%20, 79))
	}
	for i, s := range []string{
		"plain\r\ntext\x1b[1;32m ok\x1b[0m\x1b[K", "\x1b]0;\xe2\x9c\xb3 Claude Code\x07> ",
		"\x1b]0;\xe2\x9c\xb3 x\x1b\\y\x1bP$q\"p\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\z",
		"\x1b[6n\x1b[?6n\x1b[5n\x1b[c\x1b[0c\x1b[>c\x1b[?2026$p\x1b[?25$p\x1b[4$p\x1b]10;?\x07\x1b]11;?\x1b\\",
		"\x1b[?1049h\x1b[2J\x1b[Hmenu\x1b[5;3H> item\x1b[?1049l", "\x1b[?1h\x1b=\x1b[?1l\x1b>",
		"世界\x1b[1D\x1b[Pa\u0301\u200b\u00a0b\x1b[8mhidden\x1b[0m", "\x1b[3;5r\x1b[5;1H\n\n\n\x1bM\x1b[S\x1b[2T\x1b[L\x1b[M",
		"\x1b[?7lwide line without wrap ---------------------------------------------->|\r\n",
		"\x1b[99999999999999X\x1b[99999999;99999999H\x1b[999999999@\x1b[999999999b", "\x1b[?25l\x1b[3g\x1bH\t\t\x1b[2Z\x1b[4h\x1b[4l",
		"\x9b31m\x9d0;t\x9c\xc2\x9b1m", "\x1b[>1u\x1b[<u\x1b[=1;2u\x1b[?u", "\x1b7\x1b[10;10Hx\x1b8y\x1b[s\x1b[u",
	} {
		f.Add([]byte(s), seedOfSize(i%24, 79-i))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		rows, cols := fuzzSize(seed)
		whole := fed(rows, cols, [][]byte{data})
		for how, chunks := range map[string][][]byte{
			"a byte at a time": cut(data, func(int) int { return 1 }),
			"in pieces":        cut(data, pieceCutter(seed)),
		} {
			if got := fed(rows, cols, chunks); got != whole {
				t.Fatalf("%dx%d screen, %q fed %s:\n%+v\nfed whole:\n%+v", rows, cols, data, how, got, whole)
			}
		}
	})
}

// fuzzSize picks a screen's size from a fuzz seed: up to 24 rows (its low
// byte) and 80 columns (the byte above), a size rendered quickly after every
// byte.
func fuzzSize(seed uint64) (rows, cols int) {
	return 1 + int(seed&0xff)%24, 1 + int(seed>>8&0xff)%80
}

// seedOfSize is the seed fuzzSize reads as rows+1 rows and cols+1 columns.
func seedOfSize(rows, cols int) uint64 {
	return uint64(cols)<<8 | uint64(rows)
}

// shown is what a screen shows and answered, compared between feeds.
type shown struct {
	text, atCursor string
	row, col       int
	appCursor      bool
	replies        string
}

// fed feeds chunks, one Write each, to a new screen of rows×cols cells, and
// returns what it shows and every answer it gave.
func fed(rows, cols int, chunks [][]byte) shown {
	s := New(rows, cols)
	var replies []byte
	for _, c := range chunks {
		s.Write(c)
		replies = append(replies, s.Replies()...)
	}
	row, col := s.Cursor()
	return shown{text: s.Text(), atCursor: s.TextAtCursor(), row: row, col: col, appCursor: s.AppCursor(), replies: string(replies)}
}

// cut splits data into chunks, each as long as next says (given what is left),
// or longer where it would split a grapheme cluster.
func cut(data []byte, next func(rest int) int) [][]byte {
	joins := clusterJoins(data)
	var chunks [][]byte
	for off := 0; off < len(data); {
		end := off + min(next(len(data)-off), len(data)-off)
		for end < len(data) && joins[end] {
			end++
		}
		chunks = append(chunks, data[off:end])
		off = end
	}
	return chunks
}

// clusterJoins marks the bytes of data where a cut would split a grapheme
// cluster after its first character, in a cluster that is not all ASCII
// ("\r\n" is one).
func clusterJoins(data []byte) []bool {
	joins := make([]bool, len(data))
	for pos := 0; pos < len(data); {
		cluster, _ := ansi.FirstGraphemeCluster(data[pos:], ansi.GraphemeWidth)
		if len(cluster) == 0 {
			break
		}
		if _, first := utf8.DecodeRune(cluster); !isASCII(cluster) {
			for i := first; i < len(cluster); i++ {
				joins[pos+i] = true
			}
		}
		pos += len(cluster)
	}
	return joins
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// pieceCutter cuts pieces of random lengths, drawn from seed.
func pieceCutter(seed uint64) func(rest int) int {
	rng := rand.New(rand.NewPCG(seed, 2))
	return func(rest int) int { return 1 + rng.IntN(rest) }
}

// recordedOutput returns the start of the output in the recording file.
func recordedOutput(f *testing.F, file string) []byte {
	rec, err := cast.Open(file)
	if err != nil {
		f.Fatal(err)
	}
	var out []byte
	for _, ev := range rec.Events {
		if ev.Kind == cast.KindOutput && len(out) < seedOutput {
			out = append(out, ev.Data...)
		}
	}
	return out[:min(len(out), seedOutput)]
}
