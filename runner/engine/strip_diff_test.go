package engine_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/screen"
)

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
	var s engine.Stripper
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

// TestStreamAgreesWithScreen draws thousands of random lines and compares the
// stream's text with a terminal emulator's screen: each line as the stream last
// shows it is the screen's row, and every danger pattern that matches the screen
// matches the stream.
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
		screenRows := strings.Split(scr.Text(), "\n")
		text, lines := streamLines(rng, drawing, cols)
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
				got, want = strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")
			}
			if got != want {
				t.Fatalf("drawing %q\nline %d: stream %q, screen %q\nstream text %q", drawing, i, got, want, text)
			}
		}
		for _, p := range patterns {
			if anyLine(p, scr.Text()) && !anyLine(p, text) {
				t.Fatalf("drawing %q: %s matches a line of the screen %q, none of the stream %q", drawing, p, scr.Text(), text)
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
// terminal emulator's screen: each row that shows text is a line of the stream,
// and every danger pattern that matches a row of the screen matches a line of
// the stream.
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
		var s engine.Stripper
		s.SetWidth(cols)
		s.SetHeight(rows)
		var out []byte
		for rest := drawing; len(rest) > 0; {
			k := 1 + rng.IntN(len(rest))
			out = s.Settle(s.Append(out, []byte(rest[:k])))
			rest = rest[k:]
		}
		text := string(s.Flush(out))
		lines := map[string]bool{}
		for line := range strings.Lines(text) {
			lines[words(line)] = true
		}
		for i, row := range strings.Split(scr.Text(), "\n") {
			if words(row) != "" && !lines[words(row)] {
				if !utf8Narrow(drawing) {
					// The emulator renders the right half of a wide character
					// left alone by an overwrite of its left half as no column
					// at all, where a terminal shows a blank.
					continue
				}
				t.Fatalf("drawing %q\nrow %d %q of the screen is no line of the stream %q\nscreen %q", drawing, i, row, text, scr.Text())
			}
		}
		for _, p := range patterns {
			if anyLine(p, scr.Text()) && !anyLine(p, text) {
				t.Fatalf("drawing %q: %s matches a row of the screen %q, no line of the stream %q", drawing, p, scr.Text(), text)
			}
		}
	}
}

// words returns the words of a line, one space between each.
func words(line string) string {
	return strings.Join(strings.Fields(line), " ")
}
