package runner

import (
	"math/rand/v2"
	"strings"
	"testing"
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
