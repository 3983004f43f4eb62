package screen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// newExact returns a screen that writes every byte to the emulator as it
// comes, as a Screen did before it held plain output back and skipped what
// scrolls off: the reference the tests below compare with.
func newExact(rows, cols int) *Screen {
	s := New(rows, cols)
	s.exact = true
	return s
}

// sameScreen fails the test unless s shows exactly what ref shows: the text,
// the cursor, and every cell with its content, width, style and link.
func sameScreen(t *testing.T, at string, s, ref *Screen) {
	t.Helper()
	if got, want := s.TextAtCursor(), ref.TextAtCursor(); got != want {
		t.Fatalf("%s: TextAtCursor\n%q\nwant\n%q", at, got, want)
	}
	if got, want := s.Text(), ref.Text(); got != want {
		t.Fatalf("%s: Text\n%q\nwant\n%q", at, got, want)
	}
	row, col := s.Cursor()
	wantRow, wantCol := ref.Cursor()
	if row != wantRow || col != wantCol {
		t.Fatalf("%s: cursor at %d,%d, want %d,%d", at, row, col, wantRow, wantCol)
	}
	if s.AppCursor() != ref.AppCursor() {
		t.Fatalf("%s: AppCursor %v, want %v", at, s.AppCursor(), ref.AppCursor())
	}
	rows, cols := ref.Size()
	for y := range rows {
		for x := range cols {
			if got, want := s.emu.CellAt(x, y), ref.emu.CellAt(x, y); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: cell %d,%d is %+v, want %+v", at, y, x, got, want)
			}
		}
	}
}

// A coloured log scrolling by leaves the screen exactly as writing every byte
// does, and almost none of it reaches the emulator.
func TestFloodSkipsWhatScrollsOff(t *testing.T) {
	t.Parallel()
	log := append(colouredLog(1<<20), "\x1b[1mContinue? [y/n] \x1b[0m"...)
	s, ref := New(24, 80), newExact(24, 80)
	for p := log; len(p) > 0; p = p[min(len(p), 4096):] {
		s.Write(p[:min(len(p), 4096)])
		ref.Write(p[:min(len(p), 4096)])
	}
	sameScreen(t, "after the log", s, ref)
	if !strings.HasSuffix(s.TextAtCursor(), "Continue? [y/n] ") {
		t.Errorf("the prompt is not at the cursor:\n%s", s.TextAtCursor())
	}
	if s.skipped < len(log)*9/10 {
		t.Errorf("%d of %d bytes left out, want at least 90%%", s.skipped, len(log))
	}
}

// Each case writes a screenful, then a long run of plain lines whose start
// sets up what the skipped output must still leave behind, then what reveals
// it. Each would show something else if that part of the skip went wrong.
func TestSkipKeepsState(t *testing.T) {
	t.Parallel()
	lines := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%sline %d of the log\r\n", prefix, i)
		}
		return b.String()
	}
	flood := lines(300, "")
	cases := []struct {
		name, before, after string
	}{
		// The pen: concealed text shows as blanks, in the visible rows too.
		{"pen set in the skipped part", "", "\x1b[8m" + flood + "shown?"},
		{"pen reset in the skipped part", "\x1b[8m", lines(100, "") + "\x1b[0;8m" + lines(100, "") + "\x1b[28m" + lines(100, "") + "shown"},
		{"pen set after its last reset", "", "\x1b[m" + lines(100, "") + "\x1b[;8m" + flood + "x"},
		{"pen set long before", "", "\x1b[8m" + flood + flood + flood + "x"},
		// The character REP repeats: the last one the run used before the
		// cut, when none comes after it.
		{"REP after the run", "", flood + "\x1b[5b"},
		{"REP after empty lines", "", flood + strings.Repeat("\r\n", 30) + "\x1b[5b"},
		{"REP of the run's only character", "", "Z" + strings.Repeat("\r\n", 60) + "\x1b[3b"},
		{"REP with line drawing", "\x1b(0", "q" + lines(50, "") + "7q" + strings.Repeat("\r\n", 30) + "\x1b[3b"},
		// A single shift applies to the first character of the run only.
		{"single shift before the run", "\x1b*0", "\x1bNq" + flood + "q"},
		// A scroll region keeps the rows outside it: nothing may be skipped.
		{"scroll region", "header\r\n", "\x1b[2;24r\x1b[24;1H" + flood + "end"},
		{"scroll region reset", "header\r\n", "\x1b[2;24r\x1b[r\x1b[24;1H" + flood + "end"},
		{"scroll region larger than the screen", "header\r\n", "\x1b[1;30r\x1b[24;1H" + flood + "end"},
		{"left and right margins", "", "\x1b[?69h\x1b[1;40s" + flood + "\x1b[?69l" + flood + "end"},
		{"margins on the other screen", "", "\x1b[?1049h\x1b[3;10r\x1b[?1049l" + flood + "\x1b[?1049h" + flood + "end"},
		// Wide lines wrap; lines without a carriage return start elsewhere.
		{"wrapped lines", "", strings.Repeat(strings.Repeat("w", 130)+"\r\n", 100) + "end"},
		{"no wrap", "\x1b[?7l", strings.Repeat(strings.Repeat("w", 130)+"\r\n", 100) + "end"},
		{"bare line feeds", "", strings.Repeat("abc\n", 400) + "end"},
		{"new line mode", "\x1b[20h", strings.Repeat("abc\n", 400) + "end"},
		{"cursor in the middle", "\x1b[5;20H", flood + "end"},
		// Rows below the cursor keep their ends under shorter lines until
		// the cursor has reached the bottom row.
		{"cursor above longer rows", "\x1b[24;1Ha longer row at the bottom of the screen\x1b[H", strings.Repeat("\r\n", 10) + "x\r\n" + lines(36, "") + "end"},
		{"cursor far above longer rows", "\x1b[24;1Ha longer row at the bottom of the screen\x1b[H", strings.Repeat("\r\n", 5) + "x\r\n" + lines(30, "") + "end"},
		{"combining mark after the run", "", flood + "e\u0301"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The output comes in one write, in writes of 1 KiB (what is
			// held back is left out of write by write), and all of it but
			// the first write mixed with other output.
			for _, size := range []int{len(c.after), 1024, -1} {
				s, ref := New(24, 80), newExact(24, 80)
				s.minSkip = 0
				writes := []string{lines(30, "before "), c.before}
				for p := c.after; len(p) > 0; p = p[min(len(p), max(size, 1024)):] {
					writes = append(writes, p[:min(len(p), max(size, 1024))])
				}
				for i, w := range writes {
					if size < 0 && i > 2 {
						w = "\x1b[?25h" + w
					}
					s.Write([]byte(w))
					ref.Write([]byte(w))
				}
				sameScreen(t, fmt.Sprintf("%s, writes of %d", c.name, size), s, ref)
			}
		})
	}
}

// Random output, cut into random writes, shows exactly what writing every
// byte shows, with held back output taken in at random looks and sizes that
// change: the pieces plain output is made of, among escape sequences of every
// kind, UTF-8 text and control strings.
func TestSkipMatchesEveryByte(t *testing.T) {
	t.Parallel()
	skipped := 0
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 12))
		rows, cols := 2+rng.IntN(7), 4+rng.IntN(30)
		s, ref := New(rows, cols), newExact(rows, cols)
		s.minSkip, s.maxPending = rng.IntN(64), 16+rng.IntN(2048)
		out := randomOutput(rng, cols)
		for i, n := 0, 0; len(out) > 0; i, out = i+1, out[n:] {
			n = min(len(out), 1+rng.IntN([]int{3, 40, 600, 5000}[rng.IntN(4)]))
			s.Write(out[:n])
			ref.Write(out[:n])
			if got, want := s.Replies(), ref.Replies(); !bytes.Equal(got, want) {
				t.Fatalf("seed %d, write %d: replies %q, want %q", seed, i, got, want)
			}
			switch rng.IntN(20) {
			case 0:
				sameScreen(t, fmt.Sprintf("seed %d, write %d", seed, i), s, ref)
			case 1:
				rows, cols := 2+rng.IntN(7), 4+rng.IntN(30)
				s.Resize(rows, cols)
				ref.Resize(rows, cols)
			}
		}
		sameScreen(t, fmt.Sprintf("seed %d, the end", seed), s, ref)
		skipped += s.skipped
	}
	if skipped == 0 {
		t.Error("nothing was skipped: the test tests nothing")
	}
}

// randomOutput returns output for TestSkipMatchesEveryByte.
func randomOutput(rng *rand.Rand, cols int) []byte {
	sgrs := []string{"\x1b[m", "\x1b[0m", "\x1b[;8m", "\x1b[0;8m", "\x1b[8m", "\x1b[28m", "\x1b[1;31m",
		"\x1b[7m", "\x1b[0:1m", "\x1b[4:3m", "\x1b[38;5;196m", "\x1b[00;8m", "\x1b[;m", "\x1b[:8m"}
	others := []string{
		"\x1b[2;5r", "\x1b[r", "\x1b[1;100r", "\x1b[3;2r", "\x1b[?69h", "\x1b[?69l", "\x1b[3;20s", "\x1b[2s",
		"\x1b[s", "\x1b[u", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?1047h", "\x1b[?1047l", "\x1b[?7l", "\x1b[?7h",
		"\x1b[20h", "\x1b[20l", "\x1b[?6h", "\x1b[?6l", "\x1b[4h", "\x1b(0", "\x1b(B", "\x1b)0", "\x1b(A",
		"\x0e", "\x0f", "\x1bN", "\x1bO", "\x1b*0", "\x1bn", "\x1b[3b", "\x1b[b", "\x1b[H", "\x1b[5;3H", "\x1b[A",
		"\x1b[2B", "\x1b[2J", "\x1b[K", "\x1b[1K", "\t", "\b", "\x07", "\x1bM", "\x1bD", "\x1bE", "\x1b7", "\x1b8",
		"\x1b[6n", "\x1b[c", "\x1b[?6n", "\x1b[?25$p", "\x1b]0;title ✳\x07", "\x1b]11;?\x07", "\x1bP1$r\x1b\\",
		"\x1b_x\x1b\\", "名", "é", "e\u0301", "\u0301", "✓", "\u00a0", "\x1b[?25l", "\x1b[?25h", "\x1bc",
		"\x1b[!p", "\x7f", "\x1b[L", "\x1b[M", "\x1b[2S", "\x1b[T", "\x1b[3@", "\x1b[2P", "\x1b[X", "\x1b#8",
		"\x1b[?1h", "\x1b[?1l", "\x1b", "\x1b[", "\x1b[3", "\xe2\x9c", "\r", "\n", "\x0b", "\x0c",
	}
	line := func(b []byte) []byte {
		for range rng.IntN(2 * cols) {
			if rng.IntN(12) == 0 {
				b = append(b, sgrs[rng.IntN(len(sgrs))]...)
			}
			b = append(b, byte(0x20+rng.IntN(0x5f)))
		}
		return append(b, []string{"\r\n", "\r\n", "\r\n", "\n", "\r", "", "\r\x1b[0m\n"}[rng.IntN(7)]...)
	}
	var b []byte
	for range 40 + rng.IntN(80) {
		switch k := rng.IntN(10); {
		case k < 3:
			b = line(b)
		case k < 5:
			for range 10 + rng.IntN(60) {
				b = line(b)
			}
		case k < 6:
			b = append(b, sgrs[rng.IntN(len(sgrs))]...)
		default:
			b = append(b, others[rng.IntN(len(others))]...)
		}
	}
	return b
}

// Plain output held back is taken in at every look, and the version changes
// with it: nothing the screen reports is stale.
func TestHeldBackOutputIsSeen(t *testing.T) {
	t.Parallel()
	looks := []struct {
		name string
		look func(s *Screen, v uint64) string
	}{
		{"Text", func(s *Screen, _ uint64) string { return s.Text() }},
		{"TextAtCursor", func(s *Screen, _ uint64) string { return s.TextAtCursor() }},
		{"Cursor", func(s *Screen, _ uint64) string { r, c := s.Cursor(); return fmt.Sprint(r, c) }},
		{"Version", func(s *Screen, _ uint64) string { return fmt.Sprint(s.Version()) }},
		{"Changed", func(s *Screen, v uint64) string { return fmt.Sprint(s.Changed(v)) }},
	}
	for _, l := range looks {
		s := New(5, 40)
		s.Write([]byte("\x1b[?25lready"))
		v := s.Version()
		was := l.look(s, v)
		s.Write([]byte("\r\n\x1b[32mContinue? [y/n] "))
		if !s.Pending() {
			t.Fatalf("%s: plain output was not held back", l.name)
		}
		if now := l.look(s, v); now == was {
			t.Errorf("%s: still %q after more output", l.name, now)
		}
		if s.Pending() {
			t.Errorf("%s: output still held back after a look", l.name)
		}
		if s.Text() != "ready\nContinue? [y/n]" || s.Version() == v {
			t.Errorf("%s: text %q, version %d (was %d)", l.name, s.Text(), s.Version(), v)
		}
	}
	// A resize takes in what was held back first, at the old size.
	s, ref := New(5, 10), newExact(5, 10)
	for _, sc := range []*Screen{s, ref} {
		sc.Write([]byte("0123456789abc"))
		sc.Resize(5, 20)
	}
	sameScreen(t, "resized", s, ref)
	// Output that is not plain is taken in at once: it may ask something.
	s = New(5, 40)
	s.Write([]byte("abc\x1b[6n"))
	if s.Pending() || string(s.Replies()) != "\x1b[1;4R" {
		t.Errorf("a query was held back: pending %v", s.Pending())
	}
}
