package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStripper(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain", "hello world", "hello world"},
		{"sgr", "\x1b[1;32mok\x1b[0m done", "ok done"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"lone cr", "10%\r20%\r", "10%\n20%"},
		{"osc bel", "\x1b]0;title\x07prompt$ ", "prompt$ "},
		{"osc st", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"dcs", "\x1bP1$r0m\x1b\\after", "after"},
		{"charset", "\x1b(Bx", "x"},
		{"keypad", "\x1b=\x1b>y", "y"},
		{"controls", "a\x07b\x08c\x00d", "ab\nacd"},
		{"cursor jumps", "Welcome\x1b[9Gto\x1b[12GClaude", "Welcome to Claude"},
		{"invalid utf8", "a\xff\xfeb", "a\xff\xfeb"},
		{"utf8", "❯ 1. Yes", "❯ 1. Yes"},
		{"git prompt", "\x1b[1;34m(1/2) Stage this hunk [y,n,q,a,d,j,J,g,/,e,?]? \x1b[m", "(1/2) Stage this hunk [y,n,q,a,d,j,J,g,/,e,?]? "},
	}
	for _, c := range cases {
		var s Stripper
		got := string(s.Flush(s.Append(nil, []byte(c.in))))
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		// Split at every byte: the result must not change.
		var split Stripper
		var out []byte
		for i := range len(c.in) {
			out = split.Append(out, []byte{c.in[i]})
		}
		if got := string(split.Flush(out)); got != c.want {
			t.Errorf("%s byte by byte: got %q, want %q", c.name, got, c.want)
		}
	}
}

func BenchmarkStripper(b *testing.B) {
	line := "\x1b[32m2026-11-25T10:00:00Z\x1b[0m \x1b[1mINFO\x1b[0m compiling package github.com/example/module/internal/thing ... ok\r\n"
	src := []byte(strings.Repeat(line, 32<<10/len(line)))
	dst := make([]byte, 0, len(src))
	b.SetBytes(int64(len(src)))
	var s Stripper
	for b.Loop() {
		dst = s.Append(dst[:0], src)
	}
}

// TestStripperSplitsAnywhere feeds random output, rich in escapes and controls,
// whole and in random pieces: the text must be the same.
func TestStripperSplitsAnywhere(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab \x1b[]();0123456789mHJK\x07\\\r\n\t\x7fP_^X❯\xff")
	for range 500 {
		src := make([]byte, rng.IntN(300))
		for i := range src {
			src[i] = alphabet[rng.IntN(len(alphabet))]
		}
		var whole Stripper
		want := string(whole.Flush(whole.Append(nil, src)))
		var pieces Stripper
		var got []byte
		for rest := src; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			got = pieces.Append(got, rest[:k])
			rest = rest[k:]
		}
		if string(pieces.Flush(got)) != want {
			t.Fatalf("%q: split %q, whole %q", src, got, want)
		}
		for _, c := range []byte(want) {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				t.Fatalf("%q: control %#x left in %q", src, c, want)
			}
		}
	}
}

// FuzzStripper feeds output whole, byte by byte and in pieces cut by seed: what
// Append and Flush pass on must be the same, hold no control character but
// "\n", and a Stripper that settles after every piece, as the engine does, must
// end on the same line. The seed's high bits pick the terminal's size (see
// fuzzSize), so narrow and short terminals are fuzzed too.
func FuzzStripper(f *testing.F) {
	for _, s := range []string{
		"plain text\r\n", "\x1b[1;32mok\x1b[0m", "rm\x1b[1C-rf\x1b[1C/", "rm -rf /x\b ",
		"xx -rf /\rrm", "\x1b[\x18rm -rf /", "\x1b]0;\x18rm -rf /", "世 -rf /\rrm\x1b[K",
		"\x1b[4hab\x1b[4l\x1b[2D\x1b[P\x1b[@\x1b[X\x1b7x\x1b8y", "\x1b[3g\x1b[4G\x1bH\r\tz",
		"a\xffb\xe4\xb8", "\x1b[?7l" + strings.Repeat("w", 90) + "\r\n",
		"xx -rf /\r\n\x1b[A\rrm\r\n", "\x1b7a\r\nb\x1b8c\x1b[5;1Hd\x1b[2dé\x1bMf\x1b[2F",
		"\x1b[2;4r\x1b[4;1Hx\n\n\x1bM\x1b[S\x1b[2T\x1b[L\x1b[M\x1b[J\x1b[2J",
		"x\x1b[?1049hy\r\n\x1b[?1049l\x1b[Az",
	} {
		f.Add([]byte(s), uint64(len(s)))
	}
	for _, s := range []string{
		"世界世界\x1b[2D\x1b[Px\r\n\tend", "abcdefgh\x1b[1;3r\x1b[3;1H\n\n\x1bMz\x1b[?7lqrstuvwxyz",
		"\x1b[5Gé\u0301\x1b[3g\x1bH\t\x1b[2Z\x1b[99999b\x1b[99999I",
	} {
		f.Add([]byte(s), uint64(3)<<48|uint64(5)<<32|uint64(len(s)))
	}
	f.Fuzz(func(t *testing.T, src []byte, seed uint64) {
		cols, rows := fuzzSize(seed)
		sized := func() *Stripper {
			var s Stripper
			s.SetWidth(cols)
			s.SetHeight(rows)
			return &s
		}
		whole := sized()
		want := whole.Flush(whole.Append(nil, src))
		for _, c := range want {
			if c < 0x20 && c != '\n' || c == 0x7f {
				t.Fatalf("%q: control %#x in %q", src, c, want)
			}
		}
		bytewise := sized()
		var got []byte
		for i := range src {
			got = bytewise.Append(got, src[i:i+1])
		}
		if got = bytewise.Flush(got); string(got) != string(want) {
			t.Fatalf("%q: byte by byte %q, whole %q", src, got, want)
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		pieces, settled := sized(), sized()
		var cut, settle []byte
		for rest := src; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			cut = pieces.Append(cut, rest[:k])
			settle = settled.Settle(settled.Append(settle, rest[:k]))
			rest = rest[k:]
		}
		if cut = pieces.Flush(cut); string(cut) != string(want) {
			t.Fatalf("%q: in pieces %q, whole %q", src, cut, want)
		}
		// Settling passes on a changed row at once, so the settled stream ends
		// on the row last changed: the line the whole stream ends on, or one it
		// passed on whole (a row the cursor moved back to, as it ended).
		settle = settled.Flush(settle)
		if last := lastLineOf(settle); !strings.HasSuffix(lastLineOf(want), last) && !slices.Contains(strings.Split(string(want), "\n"), last) {
			t.Fatalf("%q: settling ends on %q, whole on %q", src, last, lastLineOf(want))
		}
	})
}

// fuzzSize picks a terminal's columns and rows from the high bits of a fuzz
// seed: 0 (80x24) when they are clear, as in the seeds that came first.
func fuzzSize(seed uint64) (cols, rows int) {
	if seed>>32 == 0 {
		return 0, 0
	}
	return 1 + int(seed>>32&0xffff)%200, 1 + int(seed>>48)%60
}

func lastLineOf(b []byte) string {
	return string(b[bytes.LastIndexByte(b, '\n')+1:])
}

// TestStripperStaysLinear feeds half a megabyte of each kind of output that
// makes the Stripper edit a line, whole and in pieces: each takes a moment in
// linear time, minutes if the work grew with the square of the size; the
// deadline only catches that.
func TestStripperStaysLinear(t *testing.T) {
	t.Parallel()
	const size = 512 << 10
	fill := func(unit string) string { return strings.Repeat(unit, size/len(unit)) }
	inputs := map[string]string{
		"combining marks on one character": "a" + fill("\u0301") + "\rb",
		"combining marks after an edit":    "a\rb" + fill("\u0301"),
		"backspace and overwrite":          fill("x\b"),
		"insertions":                       "abc\r" + fill("\x1b[5@"),
		"deletions":                        fill("abcdef\r\x1b[3P"),
		"repeats":                          "a" + fill("\x1b[65535b"),
		"tabs":                             fill("\x1b[65535I\x1b[65535Z"),
		"wide characters and backspaces":   fill("世\b"),
		"a long line redrawn":              fill("0123456789") + fill("\rx"),
		"cursor jumps":                     fill("\x1b[1;1H\x1b[40Gy"),
		"up and down over full rows":       strings.Repeat("x", 79) + "\r\n" + strings.Repeat("y", 79) + fill("\x1b[A\x1b[B"),
		"rows scrolled and inserted":       fill("ab\x1b[S\x1b[T\x1b[L\x1b[M\x1b[2;5r\x1bM\n"),
		"a screen redrawn":                 fill("\x1b[H" + strings.Repeat("row\r\n", 23) + "\x1b[2J"),
	}
	var marks Stripper
	marks.Append(nil, []byte("a"))
	for range 1000 {
		marks.Settle(marks.Append(nil, []byte(strings.Repeat("\u0301", 500))))
	}
	if kept := len(marks.line.saved) + len(marks.line.shown); kept > defaultWidth*maxCellBytes {
		t.Fatalf("a megabyte of combining marks on one character: %d bytes kept", kept)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for name, in := range inputs {
		var whole, pieces Stripper
		whole.Flush(whole.Append(nil, []byte(in)))
		var out []byte
		for rest := in; len(rest) > 0; rest = rest[min(len(rest), 61):] {
			out = pieces.Settle(pieces.Append(out[:0], []byte(rest[:min(len(rest), 61)])))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: over three minutes for half a megabyte", name)
		}
	}
}

// TestPlainWord checks the eight-byte test against the byte table, for every
// byte at every place of a word of printable bytes.
func TestPlainWord(t *testing.T) {
	t.Parallel()
	for place := range 8 {
		for b := range 256 {
			w := []byte("abcdefgh")
			w[place] = byte(b)
			if got := plainWord(binary.LittleEndian.Uint64(w)); got != printable[b] {
				t.Fatalf("byte %#x at %d: plainWord %v", b, place, got)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		w := rng.Uint64()
		want := true
		for k := range 8 {
			want = want && printable[byte(w>>(8*k))]
		}
		if plainWord(w) != want {
			t.Fatalf("%#x: plainWord %v", w, !want)
		}
	}
}

// TestStripperWrapsAtTheWidth: a line longer than the terminal wraps, so a
// carriage return goes back to the start of its last row, as on a terminal,
// and the width follows a resize.
func TestStripperWrapsAtTheWidth(t *testing.T) {
	t.Parallel()
	var s Stripper
	s.SetWidth(10)
	if got := string(s.Flush(s.Append(nil, []byte("0123456789abc\rX")))); got != "0123456789abc\nXbc" {
		t.Fatalf("width 10: %q", got)
	}
	s.SetWidth(20)
	if got := string(s.Flush(s.Append(nil, []byte("\r\n0123456789abc\rX")))); got != "\n0123456789abc\nX123456789abc" {
		t.Fatalf("width 20: %q", got)
	}
	// Without autowrap the last column is overwritten.
	var n Stripper
	n.SetWidth(5)
	if got := string(n.Flush(n.Append(nil, []byte("\x1b[?7labcdefg")))); got != "abcde\nabcdg" {
		t.Fatalf("no autowrap: %q", got)
	}
}

// TestStripperKeepsAScreenful: the cursor goes back up to the rows of the last
// screenful, which scroll as on a terminal; rows scrolled off the top are gone,
// and the height follows a resize.
func TestStripperKeepsAScreenful(t *testing.T) {
	t.Parallel()
	var lines strings.Builder
	for i := range 30 {
		fmt.Fprintf(&lines, "l%02d\r\n", i)
	}
	for _, whole := range []bool{true, false} {
		var s Stripper
		var out []byte
		feed := func(text string) {
			if whole {
				out = s.Append(out, []byte(text))
				return
			}
			for k := range len(text) {
				out = s.Append(out, []byte(text[k:k+1]))
			}
		}
		feed(lines.String() + "\x1b[23A\rX")
		if out = s.Settle(out); lastLineOf(out) != "X07" {
			got := lastLineOf(out)
			t.Fatalf("whole %v: 23 rows up from the bottom of 24: %q", whole, got)
		}
		feed("\x1b[99AY\x1b[5B\rZ")
		if got := string(s.Flush(out)); !strings.HasSuffix(got, "\nl29\nX07\nXY7\nZ12") {
			t.Fatalf("whole %v: past the top, then down: %q", whole, got)
		}
		s.SetHeight(5)
		out = s.Append(out[:0], []byte("\x1b[99B\r\nm\r\n\x1b[4A!"))
		if got := string(s.Flush(out)); got != "\nm\n!10" {
			// Five rows, the cursor's last: l08 to l11 and Z12, then two
			// more scroll l08 and l09 off the top.
			t.Fatalf("whole %v: after a resize to 5 rows: %q", whole, got)
		}
	}
}

// TestStripperRedrawsRowsOnce: a screen drawn again over itself with the cursor
// moved up passes on nothing; a row that changed is passed on again, alone.
func TestStripperRedrawsRowsOnce(t *testing.T) {
	t.Parallel()
	var s Stripper
	out := s.Settle(s.Append(nil, []byte("a\r\nb\r\nc\r\n")))
	for range 10 {
		out = s.Settle(s.Append(out, []byte("\x1b[3Aa\r\nb\r\nc\r\n")))
		out = s.Settle(s.Append(out, []byte("\x1b[1;1Ha\x1b[2;1Hb\x1b[3;1Hc\x1b[1;1H\x1b[3B")))
	}
	if got := string(out); got != "a\nb\nc\n" {
		t.Fatalf("redrawn as it was: %q", got)
	}
	out = s.Settle(s.Append(out, []byte("\x1b[3Aa\r\nB\r\nc\r\n")))
	if got := string(out); got != "a\nb\nc\nB\n" {
		t.Fatalf("one row changed: %q", got)
	}
}
