package screen

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestShadeAt(t *testing.T) {
	t.Parallel()
	s := New(4, 20)
	s.Write([]byte("a\x1b[7mb\x1b[44mc\x1b[27md\x1b[48;5;4me\x1b[0;31;7mf\x1b[0;48;2;1;2;3mg"))
	blue, red := s.ShadeAt(0, 3), s.ShadeAt(0, 5)
	tests := []struct {
		x    int
		want Shade
	}{
		{0, ShadeDefault},        // plain
		{1, ShadeInverse},        // reverse video in the default colours
		{2, ShadeInverse},        // reverse video shows the foreground, whatever the background
		{4, blue},                // blue as colour 4 of 256 is blue as one of the 16
		{6, shadeRGB | 0x010203}, // a true colour
		{7, ShadeDefault},        // an empty cell
		{20, ShadeDefault},       // outside the screen
		{-1, ShadeDefault},       // outside the screen
	}
	for _, tt := range tests {
		if got := s.ShadeAt(0, tt.x); got != tt.want {
			t.Errorf("ShadeAt(0, %d) = %#x, want %#x", tt.x, got, tt.want)
		}
	}
	if blue == ShadeDefault || blue == ShadeInverse {
		t.Errorf("a blue background has shade %#x", blue)
	}
	if red == blue || red == ShadeInverse || red == ShadeDefault {
		t.Errorf("red text in reverse video has shade %#x (blue %#x)", red, blue)
	}
	if got := s.ShadeAt(4, 0); got != ShadeDefault {
		t.Errorf("ShadeAt below the screen = %#x", got)
	}
}

func TestColumns(t *testing.T) {
	t.Parallel()
	s := New(3, 12)
	// A box side, a two-byte letter and a wide character.
	s.Write([]byte("│é漢x y\r\nab"))
	line := strings.Split(s.Text(), "\n")[0]
	if line != "│é漢x y" {
		t.Fatalf("line %q", line)
	}
	cols := s.Columns(nil, 0)
	// │ is 3 bytes in column 0, é 2 bytes in column 1, 漢 3 bytes in columns 2-3,
	// its second half shows nothing, x is in column 4, then the blanks.
	want := []int{0, 0, 0, 1, 1, 2, 2, 2, 4, 5, 6, 7, 8, 9, 10, 11}
	if len(cols) != len(want) {
		t.Fatalf("Columns(0) = %v, want %v", cols, want)
	}
	for i := range want {
		if cols[i] != want[i] {
			t.Fatalf("Columns(0) = %v, want %v", cols, want)
		}
	}
	if got := s.Columns([]int{7}, 1); len(got) != 13 || got[0] != 7 || got[1] != 0 || got[12] != 11 {
		t.Errorf("Columns appended to [7] = %v", got)
	}
	if got := s.Columns(nil, 3); got != nil {
		t.Errorf("Columns past the last row = %v", got)
	}
}

// Columns follows the text byte for byte on every screen of the recorded
// sessions: each row of Text and of TextAtCursor is covered, in order.
func TestColumnsCoverTheText(t *testing.T) {
	t.Parallel()
	casts, err := filepath.Glob(filepath.Join(recordings, "*", "*.cast"))
	if err != nil || len(casts) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	for _, path := range casts {
		name := filepath.Base(path)
		evs := loadCast(t, path)
		s := New(40, 120)
		for i, ev := range evs {
			if ev.kind != "o" {
				continue
			}
			s.Write([]byte(ev.data))
			for _, text := range []string{s.Text(), s.TextAtCursor()} {
				for y, line := range strings.Split(text, "\n") {
					cols := s.Columns(nil, y)
					if len(cols) < len(line) {
						t.Fatalf("%s event %d row %d: %d columns for %d bytes %q", name, i, y, len(cols), len(line), line)
					}
					for j := 1; j < len(cols); j++ {
						if cols[j] < cols[j-1] || cols[j] >= 120 {
							t.Fatalf("%s event %d row %d: columns %v", name, i, y, cols)
						}
					}
				}
			}
		}
	}
}

// A shade read right after a write sees that write, though plain output is
// held back from the emulator until the screen is looked at.
func TestShadeAtSeesHeldBackOutput(t *testing.T) {
	t.Parallel()
	s := New(4, 20)
	s.Write([]byte("\x1b[7mhi\x1b[m"))
	if got := s.ShadeAt(0, 0); got == ShadeDefault {
		t.Fatalf("ShadeAt(0, 0) = default after a reverse-video write")
	}
	if cols := s.Columns(nil, 0); len(cols) == 0 || cols[0] != 0 {
		t.Fatalf("Columns(0) = %v after a write", cols)
	}
}
