package stream_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/screen"
	"github.com/clai-sh/clai/runner/stream"
)

// The differential tests here hold the stripper to the terminal emulator of
// screen matching (runner/screen) on thousands of random drawings, by the
// relation danger rules rely on: danger rules see at least what a person
// sees. Stated exactly, it is seesAtLeast.

// drawer writes random lines the way programs draw them: text, horizontal cursor
// motion, overwrites, erases, insertions and deletions, styles, and sequences
// aborted by CAN or SUB, keeping every line shorter than the screen is wide.
type drawer struct {
	rng *rand.Rand
	// narrow keeps wide characters out of a drawing that inserts and deletes
	// characters: where such an edit cuts a wide character in two, terminals
	// differ.
	narrow bool
	b      strings.Builder
	col    int // where the cursor is, as far as the drawing knows
	limit  int // the cursor stays left of this column
}

// pieces are the texts drawn: words that make dangerous commands, and
// characters of one and two columns.
var pieces = []string{
	"rm", "-rf", "/", " ", "  ", "x", "ab", "tmp", "sudo", "Proceed?",
	"é", "ü", "❯", "世", "界", "日本", "ｱ",
}

func pieceWidth(s string) int {
	w := 0
	for _, r := range s {
		w++
		if !utf8Narrow(string(r)) {
			w++
		}
	}
	return w
}

func (d *drawer) printf(format string, args ...any) {
	fmt.Fprintf(&d.b, format, args...)
}

// step draws one random thing.
func (d *drawer) step() {
	rng := d.rng
	n := 1 + rng.IntN(6)
	switch rng.IntN(22) {
	case 0, 1, 2, 3, 4, 5, 6:
		p := pieces[rng.IntN(len(pieces))]
		if d.narrow && !utf8Narrow(p) {
			p = "w"
		}
		if d.col+pieceWidth(p) < d.limit {
			d.b.WriteString(p)
			d.col += pieceWidth(p)
		}
	case 7:
		if d.col+n < d.limit {
			d.printf("\x1b[%dC", n) // CUF
			d.col += n
		}
	case 8:
		d.printf("\x1b[%dD", n) // CUB
		d.col = max(0, d.col-n)
	case 9:
		c := rng.IntN(d.limit - 1)
		if rng.IntN(2) == 0 {
			d.printf("\x1b[%dG", c+1) // CHA
		} else {
			d.printf("\x1b[%d`", c+1) // HPA
		}
		d.col = c
	case 10:
		d.b.WriteByte('\b')
		d.col = max(0, d.col-1)
	case 11:
		d.b.WriteByte('\r')
		d.col = 0
	case 12:
		if next := (d.col/8 + 1) * 8; next < d.limit {
			d.b.WriteByte('\t')
			d.col = next
		}
	case 13:
		d.printf("\x1b[%dX", n) // ECH
	case 14:
		d.printf("\x1b[%dK", rng.IntN(3)) // EL
	case 15:
		if d.narrow {
			d.printf("\x1b[%dP", n) // DCH
		}
	case 16:
		if d.narrow {
			d.printf("\x1b[%d@", n) // ICH
		}
	case 17:
		d.printf("\x1b[%d;3%dm", rng.IntN(2), rng.IntN(8)) // SGR
	case 18:
		aborts := []string{"\x18", "\x1a"}
		starts := []string{"\x1b[", "\x1b[12;", "\x1b]0;title", "\x1bP1$r", "\x1b_apc", "\x1b("}
		d.b.WriteString(starts[rng.IntN(len(starts))] + aborts[rng.IntN(2)])
	case 19:
		d.b.WriteString("\x1b]0;a title\x07") // OSC, ended
	case 20:
		// A control inside a CSI is carried out.
		if rng.IntN(2) == 0 {
			d.b.WriteString("\x1b[\b0m")
			d.col = max(0, d.col-1)
		} else {
			d.b.WriteString("\x1b[\r0m")
			d.col = 0
		}
	case 21:
		if d.col+n < d.limit {
			d.printf("\x1b[%da", n) // HPR
			d.col += n
		}
	}
}

// draw returns a drawing of a few lines.
func draw(rng *rand.Rand, cols int) string {
	d := &drawer{rng: rng, limit: cols - 4, narrow: rng.IntN(2) == 0}
	lines := 1 + rng.IntN(4)
	for l := range lines {
		if l > 0 {
			d.b.WriteString("\r\n")
			d.col = 0
		}
		for range rng.IntN(30) {
			d.step()
		}
	}
	return d.b.String()
}

// streamLines feeds the drawing to a Stripper in random pieces, settling after
// each as the engine does, and returns all its text and the last version of each
// line the drawing ended with "\r\n".
func streamLines(rng *rand.Rand, drawing string, cols int) (text string, lines []string) {
	var s stream.Stripper
	s.SetWidth(cols)
	var out []byte
	for i, line := range strings.Split(drawing, "\r\n") {
		if i > 0 {
			line = "\r\n" + line
		}
		start := len(out)
		for rest := line; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			out = s.Settle(s.Append(out, []byte(rest[:k])))
			rest = rest[k:]
		}
		mine := string(out[start:])
		if i > 0 {
			mine = strings.TrimPrefix(mine, "\n")
		}
		lines = append(lines, mine[strings.LastIndexByte(mine, '\n')+1:])
	}
	return string(s.Flush(out)), lines
}

// seesAtLeast checks the relation "danger rules see at least what a person
// sees" between what a terminal emulator's screen shows (screenText, its rows
// one a line) and the stripper's text for the same drawing (streamText):
//
//   - every row of the screen that shows text is a line of the stream, the
//     words of each compared one space apart (the stream passes on a row's
//     every version, and columns it skipped as spaces);
//   - every pattern that matches a row of the screen matches a line of the
//     stream.
//
// rows is false where the drawing leaves the right half of a wide character
// alone by an overwrite of its left half: the emulator renders it as no column
// at all, where a terminal shows a blank, so only the patterns are compared.
// It returns what the stream misses, or "" when the relation holds.
func seesAtLeast(screenText, streamText string, patterns []*regexp.Regexp, rows bool) string {
	if rows {
		lines := map[string]bool{}
		for line := range strings.Lines(streamText) {
			lines[words(line)] = true
		}
		for i, row := range strings.Split(screenText, "\n") {
			if words(row) != "" && !lines[words(row)] {
				return fmt.Sprintf("row %d %q of the screen is no line of the stream", i, row)
			}
		}
	}
	for _, p := range patterns {
		if anyLine(p, screenText) && !anyLine(p, streamText) {
			return fmt.Sprintf("%s matches a row of the screen, no line of the stream", p)
		}
	}
	return ""
}

// TestStreamAgreesWithScreen draws thousands of random drawings of a few lines
// and compares the stream's text with a terminal emulator's screen: the
// stream sees at least what the screen shows (seesAtLeast), and more exactly,
// each line as the stream last shows it is the screen's row.
func TestStreamAgreesWithScreen(t *testing.T) {
	t.Parallel()
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`rm\s+-rf\s+/(\s|$)`),
		regexp.MustCompile(`rm -rf`),
		regexp.MustCompile(`sudo\s+rm`),
		regexp.MustCompile(`(?m)^x`),
		regexp.MustCompile(`tmp/$|tmp/\s`),
		regexp.MustCompile(`世界`),
		regexp.MustCompile(`Proceed\?`),
	}
	const rows, cols = 24, 80
	rng := rand.New(rand.NewPCG(11, 12))
	scr := screen.New(rows, cols)
	for range 3000 {
		drawing := draw(rng, cols)
		// A reset terminal (RIS), cleared, is a new one.
		scr.Write([]byte("\x1bc\x1b[H\x1b[2J" + drawing))
		text, lines := streamLines(rng, drawing, cols)
		if missed := seesAtLeast(scr.Text(), text, patterns, true); missed != "" {
			t.Fatalf("drawing %q: %s\nscreen %q\nstream %q", drawing, missed, scr.Text(), text)
		}
		screenRows := strings.Split(scr.Text(), "\n")
		for i, line := range lines {
			want := ""
			if i < len(screenRows) {
				want = screenRows[i]
			}
			got := strings.TrimRight(line, " ")
			want = strings.TrimRight(want, " ")
			if !utf8Narrow(drawing) {
				// The emulator renders the right half of a wide character left
				// alone by an overwrite of its left half as no column at all,
				// where a terminal shows a blank: compare the words.
				got, want = words(got), words(want)
			}
			if got != want {
				t.Fatalf("drawing %q\nline %d: stream %q, screen %q\nstream text %q", drawing, i, got, want, text)
			}
		}
	}
}

func anyLine(p *regexp.Regexp, text string) bool {
	for line := range strings.Lines(text) {
		if p.MatchString(strings.TrimSuffix(line, "\n")) {
			return true
		}
	}
	return false
}

// utf8Narrow reports whether no character of s takes two columns.
func utf8Narrow(s string) bool {
	for _, r := range s {
		if r >= 0x1100 && r != 'ｱ' {
			return false
		}
	}
	return true
}

// rowDrawer draws over a few rows of the screen: the drawer's lines, with the
// cursor moved up, down and to rows by number, saved and restored, and rows
// erased, inserted, deleted and scrolled.
type rowDrawer struct {
	drawer
	row, rows          int
	savedRow, savedCol int
	saved              bool
	// scroll lets the drawing scroll: rows is the screen's height, and line
	// feeds, reverse indexes and scrolling regions scroll it.
	scroll bool
}

func (d *rowDrawer) step() {
	rng := d.rng
	n := 1 + rng.IntN(3)
	switch rng.IntN(30) {
	case 0:
		d.printf("\x1b[%dA", n) // CUU
		d.row = max(0, d.row-n)
	case 1:
		if d.row+n < d.rows {
			d.printf("\x1b[%dB", n) // CUD
			d.row += n
		}
	case 2:
		d.printf("\x1b[%dF", n) // CPL
		d.row, d.col = max(0, d.row-n), 0
	case 3:
		if d.row+n < d.rows {
			d.printf("\x1b[%dE", n) // CNL
			d.row, d.col = d.row+n, 0
		}
	case 4:
		d.row = rng.IntN(d.rows)
		d.printf("\x1b[%dd", d.row+1) // VPA
	case 5:
		d.row, d.col = rng.IntN(d.rows), rng.IntN(d.limit-1)
		d.printf("\x1b[%d;%dH", d.row+1, d.col+1) // CUP
	case 6:
		if d.row > 0 || d.scroll {
			d.b.WriteString("\x1bM") // RI
			d.row = max(0, d.row-1)
		}
	case 7:
		if d.row+1 < d.rows || d.scroll {
			d.b.WriteString("\r\n")
			d.row, d.col = min(d.row+1, d.rows-1), 0
		}
	case 8:
		// DECSC; the emulator does not carry out SCOSC and SCORC.
		d.b.WriteString("\x1b7")
		d.savedRow, d.savedCol, d.saved = d.row, d.col, true
	case 9:
		if d.saved {
			d.b.WriteString("\x1b8") // DECRC
			d.row, d.col = d.savedRow, d.savedCol
		}
	case 10:
		// ED 0 or 2; the emulator erases all the screen for ED 1, where a
		// terminal erases up to the cursor.
		d.printf("\x1b[%dJ", 2*rng.IntN(2))
	case 11:
		if d.narrow && rng.IntN(3) == 0 {
			// IL or DL: the rows below the cursor move.
			d.printf("\x1b[%d%c", n, "LM"[rng.IntN(2)])
			d.col = 0
		}
	case 12:
		if d.scroll {
			// DECSTBM over the whole screen, which homes the cursor. (Where
			// the cursor stops at a smaller region's margins, and which rows
			// insertions act on, the emulator differs from xterm.)
			d.printf("\x1b[1;%dr", d.rows)
			d.row, d.col = 0, 0
		}
	case 13:
		if d.scroll {
			d.printf("\x1b[%d%c", n, "ST"[rng.IntN(2)]) // SU, SD
		}
	default:
		d.drawer.step()
	}
}

// drawRows returns a drawing over the first rows of the screen, each shorter
// than the screen is wide; it scrolls when it may.
func drawRows(rng *rand.Rand, rows, cols int, scroll bool) string {
	d := &rowDrawer{drawer: drawer{rng: rng, limit: cols - 4, narrow: rng.IntN(2) == 0}, rows: rows, scroll: scroll}
	for range rng.IntN(120) {
		d.step()
	}
	return d.b.String()
}

// TestStreamAgreesWithScreenOverRows draws thousands of random drawings over a
// few rows, moving the cursor between them, and compares the stream with a
// terminal emulator's screen: the stream sees at least what the screen shows
// (seesAtLeast).
func TestStreamAgreesWithScreenOverRows(t *testing.T) {
	t.Parallel()
	// No pattern of wide characters: the emulator renders the right half of
	// a wide character left alone by an overwrite of its left half as no
	// column at all, which can join two others.
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`rm\s+-rf\s+/(\s|$)`),
		regexp.MustCompile(`rm -rf`),
		regexp.MustCompile(`sudo\s+rm`),
		regexp.MustCompile(`tmp/$|tmp/\s`),
		regexp.MustCompile(`Proceed\?`),
	}
	const cols = 80
	rng := rand.New(rand.NewPCG(13, 14))
	screens := map[int]*screen.Screen{}
	for i := range 3000 {
		// Half the drawings stay on the first rows of a screen of 24, half
		// scroll a screen of a few rows.
		rows, scroll := 24, i%2 == 1
		drawing := drawRows(rng, 2+rng.IntN(7), cols, false)
		if scroll {
			rows = 2 + rng.IntN(5)
			drawing = drawRows(rng, rows, cols, true)
		}
		scr := screens[rows]
		if scr == nil {
			scr = screen.New(rows, cols)
			screens[rows] = scr
		}
		// A reset terminal (RIS), cleared, is a new one.
		scr.Write([]byte("\x1bc\x1b[H\x1b[2J" + drawing))
		var s stream.Stripper
		s.SetWidth(cols)
		s.SetHeight(rows)
		var out []byte
		for rest := drawing; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			out = s.Settle(s.Append(out, []byte(rest[:k])))
			rest = rest[k:]
		}
		text := string(s.Flush(out))
		if missed := seesAtLeast(scr.Text(), text, patterns, utf8Narrow(drawing)); missed != "" {
			t.Fatalf("drawing %q: %s\nscreen %q\nstream %q", drawing, missed, scr.Text(), text)
		}
	}
}

// words returns the words of a line, one space between each.
func words(line string) string {
	return strings.Join(strings.Fields(line), " ")
}
