package stream

import (
	"bytes"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"

	"github.com/clai-sh/clai/internal/glyph"
)

// defaultWidth is the terminal width when none is known, a pty's default.
const defaultWidth = 80

// termLine is the row of a terminal the cursor is on, and what of it the
// Stripper has passed on.
//
// It has two forms. While only text at the end of the row is added (nearly
// always), the row is the text passed on for it (saved, then dst[at:] of the
// current write), starting at column indent and ending at column end: nothing
// is kept per cell. Once the row changes behind that text, it is edited: its
// cells are kept, and shown is the text passed on for it, which the row is
// compared with at the end of the line or when the Stripper settles.
type termLine struct {
	width int
	col   int
	// wrapPending is set once a character filled the last column: the next one
	// goes to the next row.
	wrapPending bool
	noAutowrap  bool
	insert      bool

	// indent is the column the row began at after vertical motion: the blank
	// cells before it are not part of the text.
	indent int
	saved  []byte
	at     int
	end    int

	edited bool
	cells  []cell
	shown  []byte
	buf    []byte

	// carried is set when the stream's current line holds text of the rows
	// before this one (a long line that wrapped).
	carried bool
	// revisited is set when the cursor came to this row by moving back to it,
	// not by a line feed that opened it; detached when the row held text then,
	// which the stream holds on a line that ended, not on its current line.
	revisited bool
	detached  bool
	// redraws lists the rows passed on again since the last write began;
	// startY is the cursor's row as it began, and startText the row's text
	// then; nowText is a buffer for the row's text now. startScrolled is set
	// once the rows scroll over startY in the write: the text on that row
	// then is another row's, come up from below.
	redraws            []Redraw
	startY             int
	startText, nowText []byte
	startScrolled      bool
	screenRows
	saveCol  int
	saveY    int
	hasSaved bool
	// conceal is set while text is drawn concealed (SGR 8): it shows as
	// blanks; saveConceal is what save kept of it, as DECSC keeps the pen.
	conceal, saveConceal bool
	// last is the last printable ASCII character, which REP repeats.
	last byte
	// tabs holds the tab stops once a program sets them; nil means every
	// eight columns.
	tabs []bool
}

// cell is one column of a row. w is 0 for a blank cell, 1 or 2 for a character
// that takes one or two columns, and -1 for the right half of a wide one.
type cell struct {
	text string
	w    int8
}

// byteText holds each byte as a string: a cell of one byte needs no allocation.
var byteText = func() (t [256]string) {
	for i := range t {
		t[i] = string([]byte{byte(i)})
	}
	return t
}()

// byteSlice holds each byte, for the byte slices of REP.
var byteSlice = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	return t
}()

func cellText(b []byte) string {
	if len(b) == 1 {
		return byteText[b[0]]
	}
	return string(b)
}

// runeWidth returns the columns the character b (one character, or one byte
// of invalid UTF-8) takes, as the screen emulator counts them with ambiguous
// East Asian characters narrow, its default (TestRuneWidthAsTheScreen).
func runeWidth(b []byte) int {
	return displaywidth.Options{}.Bytes(b)
}

func (l *termLine) w() int {
	if l.width > 0 {
		return l.width
	}
	return defaultWidth
}

func (l *termLine) setWidth(cols int) {
	if cols == l.width {
		return
	}
	l.width = cols
	w := l.w()
	if !l.edited && l.end > w {
		l.materialize(nil)
	}
	if l.edited && len(l.cells) > w {
		l.cells = l.cells[:w]
		l.fixWide()
	}
	l.col = min(l.col, w-1)
	l.indent = min(l.indent, w)
}

// beginWrite starts a write whose text goes to dst.
func (l *termLine) beginWrite(dst []byte) {
	if !l.edited {
		l.at = len(dst)
	}
	l.redraws = l.redraws[:0]
	l.startY, l.startScrolled = l.y, false
	l.startText = l.rowText(l.startText[:0])
}

// rowText appends the text of the cursor's row between writes.
func (l *termLine) rowText(b []byte) []byte {
	if l.edited {
		return l.render(b)
	}
	return append(b, l.saved...)
}

// endWrite ends a write: the text passed on in it for the row and the rows
// left is kept.
func (l *termLine) endWrite(dst []byte) {
	if !l.edited {
		l.saved = append(l.saved, dst[l.at:]...)
		l.at = 0
	}
	if len(l.pending) > 0 || l.pendingAll || l.scrolled > 0 {
		l.keepPending(dst)
	}
}

// blank reports whether a row in the short form holds no text.
func (l *termLine) blank(dst []byte) bool {
	return len(l.saved) == 0 && len(dst) == l.at
}

// appends reports whether n printable ASCII characters only add to the end of
// the row, before its last column.
func (l *termLine) appends(n int) bool {
	return !l.edited && !l.wrapPending && l.col == l.end && n < l.w()-l.col
}

// ascii adds a run of printable ASCII.
func (l *termLine) ascii(dst, b []byte) []byte {
	if l.edited || l.noAutowrap || l.col != l.end && !l.wrapPending {
		return l.putEach(dst, b)
	}
	// Text at the end of the row: it is added at once, and what does not fit
	// before the last column goes on the next rows.
	start, width := len(dst), l.w()
	dst = append(dst, b...)
	for k := 0; k < len(b); {
		if l.wrapPending {
			switch row := dst[:start+k]; {
			case l.y+1 == l.scrollEnd && len(l.saved) == 0:
				l.pushBottom(len(row))
				l.startRow(row, 0, true)
			case l.scrollBottom(row):
				l.startRow(row, 0, true)
			case !l.nextRowBlank():
				// The text goes on over a row that holds text.
				return l.putEach(row, b[k:])
			default:
				l.leave(row)
				l.down(row, 0, true)
			}
		}
		fits := min(len(b)-k, width-l.col)
		l.end = l.col + fits
		l.col = min(l.end, width-1)
		l.wrapPending = l.end == width
		k += fits
	}
	l.last = b[len(b)-1]
	return dst
}

// putEach adds printable ASCII a character at a time.
func (l *termLine) putEach(dst, b []byte) []byte {
	for k := range b {
		dst = l.put(dst, b[k:k+1], 1)
	}
	return dst
}

// char adds the UTF-8 character b.
func (l *termLine) char(dst, b []byte) []byte {
	r, _ := utf8.DecodeRune(b)
	if glyph.Invisible(r) {
		// A zero-width space, a directional mark …: nothing shows.
		return dst
	}
	w := runeWidth(b)
	switch {
	case w > 0 && (l.conceal || glyph.Blank(r)):
		return l.put(dst, blanks[:1], w)
	case w > 0:
		return l.put(dst, b, w)
	case l.conceal:
		return dst
	}
	return l.combine(dst, b)
}

// concealed adds printable ASCII text drawn concealed: it shows as blanks.
func (l *termLine) concealed(dst, b []byte) []byte {
	for len(b) > 0 {
		k := min(len(b), len(blanks))
		dst = l.ascii(dst, blanks[:k])
		b = b[k:]
	}
	return dst
}

// blanks are the spaces concealed text and blank characters show as.
var blanks = []byte("                                                                ")

// put writes a character that takes w columns at the cursor.
func (l *termLine) put(dst, text []byte, w int) []byte {
	width := l.w()
	if w > width {
		return dst
	}
	if l.wrapPending {
		dst = l.wrap(dst)
	}
	if w == 2 && l.col == width-1 {
		if l.noAutowrap {
			return dst
		}
		dst = l.wrap(dst)
	}
	if len(text) == 1 && text[0] < 0x80 {
		l.last = text[0]
	}
	// A byte that starts no UTF-8 character could join the next one into a
	// character if the row were kept as text: it is kept in a cell of its own.
	if !l.edited && (len(text) > 1 || text[0] < 0x80) {
		if l.blank(dst) {
			// Nothing to overwrite: the text starts where the cursor is, or
			// after blanks from where the row began.
			l.indent = min(l.indent, l.col)
			l.end = l.indent
		}
		if l.col >= l.end {
			// Blank cells up to the cursor become spaces.
			for range l.col - l.end {
				dst = append(dst, ' ')
			}
			dst = append(dst, text...)
			l.end = min(l.col+w, width)
			l.advance(w)
			return dst
		}
	}
	if !l.edited {
		l.materialize(dst)
	}
	if l.insert {
		l.insertCells(l.col, w)
	}
	l.ensure(l.col + w)
	l.clearWide(l.col)
	if w == 2 {
		l.clearWide(l.col + 1)
		l.cells[l.col+1] = cell{w: -1}
	}
	l.cells[l.col] = cell{text: cellText(text), w: int8(w)}
	l.advance(w)
	return dst
}

func (l *termLine) advance(w int) {
	if width := l.w(); l.col+w >= width {
		l.col = width - 1
		l.wrapPending = !l.noAutowrap
		return
	}
	l.col += w
}

// combine adds a character that takes no column (a combining mark) to the one
// before the cursor.
func (l *termLine) combine(dst, b []byte) []byte {
	if !l.edited {
		text := len(l.saved) + len(dst) - l.at
		if text > 0 && (l.col == l.end || l.wrapPending) && text+len(b) <= l.w()*maxCellBytes {
			return append(dst, b...)
		}
		// The row's cells bound what a run of marks can add.
		l.materialize(dst)
	}
	k := l.col - 1
	if l.wrapPending {
		k = l.col
	}
	if k >= 0 && k < len(l.cells) && l.cells[k].w < 0 {
		k--
	}
	if k >= 0 && k < len(l.cells) {
		l.cells[k].join(b)
	}
	return dst
}

// maxCellBytes bounds the text of a cell: combining marks past it are dropped,
// so that no run of them makes a cell grow without end.
const maxCellBytes = 64

// join adds a combining mark to the character of the cell.
func (c *cell) join(mark []byte) {
	if c.w > 0 && len(c.text)+len(mark) <= maxCellBytes {
		c.text += string(mark)
	}
}

// materialize turns the row's text into cells.
func (l *termLine) materialize(dst []byte) {
	l.shown = append(append(l.shown[:0], l.saved...), dst[l.at:]...)
	l.cells = l.cells[:0]
	for range l.indent {
		l.cells = append(l.cells, cell{})
	}
	for t := l.shown; len(t) > 0; {
		k := 1
		if c := t[0]; c < 0x80 {
			l.cells = append(l.cells, cell{text: byteText[c], w: 1})
		} else {
			k = charLen(t)
			switch w := runeWidth(t[:k]); {
			case k == 1:
				l.cells = append(l.cells, cell{text: byteText[c], w: 1})
			case w == 0:
				if n := len(l.cells); n > 0 {
					l.cells[n-1].join(t[:k])
				}
			default:
				l.cells = append(l.cells, cell{text: string(t[:k]), w: int8(w)})
				if w == 2 {
					l.cells = append(l.cells, cell{w: -1})
				}
			}
		}
		t = t[k:]
	}
	if w := l.w(); len(l.cells) > w {
		l.cells = l.cells[:w]
		l.fixWide()
	}
	l.edited = true
	l.saved = l.saved[:0]
}

// charLen returns the length of the UTF-8 character t starts with, 1 for a byte
// that starts none.
func charLen(t []byte) int {
	_, size := utf8.DecodeRune(t)
	return size
}

// drawn returns the cells of the row that show: blank cells before the first
// character of a row that began after vertical motion, and after the last
// character, are left out.
func (l *termLine) drawn() (start, last int) {
	if ind := min(l.indent, len(l.cells)); ind > 0 && allBlank(l.cells[:ind]) {
		start = ind
	}
	last = len(l.cells)
	for last > start && l.cells[last-1].w == 0 {
		last--
	}
	return start, last
}

// render appends the row's text: the cells that show (see drawn), a blank
// cell among them as a space.
func (l *termLine) render(b []byte) []byte {
	start, last := l.drawn()
	for _, c := range l.cells[start:last] {
		switch {
		case c.w == 0:
			b = append(b, ' ')
		case c.w > 0:
			b = append(b, c.text...)
		}
	}
	return b
}

// hasLoneByte reports whether a cell holds a byte that starts no UTF-8
// character.
func hasLoneByte(cells []cell) bool {
	for _, c := range cells {
		if len(c.text) == 1 && c.text[0] >= 0x80 {
			return true
		}
	}
	return false
}

func allBlank(cells []cell) bool {
	for _, c := range cells {
		if c.w != 0 {
			return false
		}
	}
	return true
}

// flush passes on an edited row: what was added at its end, or "\n" and the
// whole row when it changed behind what was passed on.
func (l *termLine) flush(dst []byte) []byte {
	if !l.edited {
		return dst
	}
	l.buf = l.render(l.buf[:0])
	switch {
	case l.detached:
		// The stream holds the row on a line that ended: it is passed on
		// again, on a line of its own, if it changed.
		if bytes.Equal(l.buf, l.shown) {
			return dst
		}
		if l.carried {
			dst = append(dst, '\n')
		}
		dst = l.redraw(dst)
		l.detached = false
	case bytes.HasPrefix(l.buf, l.shown):
		dst = append(dst, l.buf[len(l.shown):]...)
	default:
		dst = l.redraw(append(dst, '\n'))
	}
	l.shown, l.buf = l.buf, l.shown
	return dst
}

// redraw passes on the row again, as it shows now.
func (l *termLine) redraw(dst []byte) []byte {
	l.redraws = append(l.redraws, sameEnds(len(dst), l.shown, l.buf))
	l.carried = false
	return append(dst, l.buf...)
}

// settle passes on an edited row and returns it to the short form.
func (l *termLine) settle(dst []byte) []byte {
	if !l.edited {
		return dst
	}
	dst = l.flush(dst)
	if l.detached || hasLoneByte(l.cells) {
		return dst
	}
	start, last := l.drawn()
	l.edited = false
	l.saved = append(l.saved[:0], l.shown...)
	l.at = 0
	l.indent, l.end = start, last
	return dst
}

// hasText reports whether the stream's current line holds text.
func (l *termLine) hasText(dst []byte) bool {
	if l.carried {
		return true
	}
	if l.detached {
		return false
	}
	if l.edited {
		return len(l.shown) > 0
	}
	return !l.blank(dst)
}

// lineFeed moves the cursor down a row from a row in the short form, which the
// stream shows on its current line: that line ends. (At the bottom of the
// screen, Append scrolls it itself.)
func (l *termLine) lineFeed(dst []byte) []byte {
	l.leave(dst)
	dst = append(dst, '\n')
	l.down(dst, l.col, false)
	return dst
}

// scrollBottom stores the row, in the short form, that ends at the end of dst,
// and scrolls the screen up, if the row is the bottom one of a screen that
// scrolls as a whole (nearly always). It reports whether it did: the new row
// is blank then.
func (l *termLine) scrollBottom(dst []byte) bool {
	if l.y+1 != l.scrollEnd {
		return false
	}
	if len(l.saved) == 0 {
		l.pushBottom(len(dst))
		return true
	}
	// The row began in an earlier write: its text is kept now, where the
	// ring ends, and the row at the top scrolls off.
	l.startScrolled = true
	l.scrolledOff++
	n, top := len(l.rows.ring), l.rows.top
	r := &l.rows.ring[(top+n-1)%n]
	l.saved = append(l.saved, dst[l.at:]...)
	r.form, r.indent = rowText, l.indent
	r.text, l.saved = l.saved, r.text[:0]
	l.rows.top = (top + 1) % n
	return true
}

// pushBottom stores the bottom row, in the short form, whose text began in
// this write and ends at to, where the ring ends, and scrolls the screen up:
// the row at the top scrolls off, and its place is the new bottom row's,
// stored when the cursor leaves it. The screen must scroll as a whole.
func (l *termLine) pushBottom(to int) {
	l.startScrolled = true
	l.scrolledOff++
	rows := &l.rows
	end := rows.top - 1
	if end < 0 {
		end += len(rows.ring)
	}
	r := &rows.ring[end]
	r.form, r.indent, r.from, r.to = rowPending, l.indent, l.at, to
	l.scrolledLast, l.scrolled = end, l.scrolled+1
	if rows.top++; rows.top == len(rows.ring) {
		rows.top = 0
	}
}

// newline moves the cursor down a row, to column col. A line feed ends the
// stream's line unless it leaves a row moved back to; other motion only a line
// that holds text.
func (l *termLine) newline(dst []byte, col int, lineFeed bool) []byte {
	dst, text := l.endRow(dst)
	if text || lineFeed && !l.revisited {
		dst = append(dst, '\n')
	}
	l.down(dst, col, false)
	return dst
}

// wrap moves to the next row after the last column was filled; the stream's
// line goes on.
func (l *termLine) wrap(dst []byte) []byte {
	dst, text := l.endRow(dst)
	l.down(dst, 0, text)
	return dst
}

// startRow makes the row blank, in the short form, with the cursor at col.
func (l *termLine) startRow(dst []byte, col int, carried bool) {
	col = max(0, min(col, l.w()-1))
	l.edited, l.detached, l.revisited = false, false, false
	l.saved = l.saved[:0]
	l.at = len(dst)
	l.col, l.indent, l.end = col, col, col
	l.wrapPending = false
	l.carried = carried
}
