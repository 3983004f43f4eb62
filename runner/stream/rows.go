package stream

// defaultHeight is the terminal height when none is known, a pty's default.
const defaultHeight = 24

// rowForm tells how a stored row holds its text.
type rowForm uint8

const (
	rowBlank   rowForm = iota // nothing on the row
	rowText                   // text, from column indent: a row in the short form
	rowPending                // text in the output of the current write, from..to
	rowCells                  // cells: a row that was edited
)

// storedRow is a row of the screen the cursor is not on. Its text is what the
// Stripper last passed on for it: a row is passed on again whenever it is left
// changed.
type storedRow struct {
	form     rowForm
	indent   int
	from, to int
	text     []byte
	cells    []cell
}

// rowSet is a screen's rows: ring holds them from top, the ring index of the
// first row.
type rowSet struct {
	ring []storedRow
	top  int
}

func (s *rowSet) at(y int) *storedRow {
	i := s.top + y
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	return &s.ring[i]
}

func (s *rowSet) clear(from, to int) {
	for y := from; y < to; y++ {
		s.at(y).form = rowBlank
	}
}

// scrollUp moves the rows from top to bottom up by n; n blank rows come in at
// the bottom.
func (s *rowSet) scrollUp(top, bottom, n int) {
	n = min(n, bottom-top+1)
	if top == 0 && bottom == len(s.ring)-1 {
		s.top = (s.top + n) % len(s.ring)
	} else {
		for y := top; y+n <= bottom; y++ {
			a, b := s.at(y), s.at(y+n)
			*a, *b = *b, *a
		}
	}
	s.clear(bottom-n+1, bottom+1)
}

// scrollDown moves the rows from top to bottom down by n; n blank rows come in
// at the top.
func (s *rowSet) scrollDown(top, bottom, n int) {
	n = min(n, bottom-top+1)
	for y := bottom; y-n >= top; y-- {
		a, b := s.at(y), s.at(y-n)
		*a, *b = *b, *a
	}
	s.clear(top, top+n)
}

// screenRows is the screen around the cursor's row: the rows a program can move
// the cursor back to, the scrolling region, and the alternate screen.
type screenRows struct {
	height int
	rows   rowSet
	// other is the main screen's rows while the alternate screen shows.
	other     rowSet
	alternate bool
	// y is the cursor's row; the row itself is the termLine while the cursor
	// is on it.
	y                       int
	marginTop, marginBottom int
	// scrollEnd is the height when the whole screen scrolls, else 0.
	scrollEnd int
	origin    bool
	// pending lists the rows whose text is still in the current write's
	// output; pendingAll is set when there are too many to list.
	pending    []int32
	pendingAll bool
	// scrolled counts the rows stored by scrolling the bottom row in the
	// current write, which lie in the ring up to scrolledLast.
	scrolled, scrolledLast int
	// scrolledOff counts the rows that left the top of the screen as it
	// scrolled up as a whole, in all writes.
	scrolledOff uint64
}

func (r *screenRows) h() int {
	if r.height > 0 {
		return r.height
	}
	return defaultHeight
}

// setMarginRows sets the scrolling region's first and last rows.
func (l *termLine) setMarginRows(top, bottom int) {
	l.marginTop, l.marginBottom = top, bottom
	l.scrollEnd = 0
	if l.rows.ring != nil && top == 0 && bottom == len(l.rows.ring)-1 {
		l.scrollEnd = bottom + 1
	}
}

// ensureRows makes the rows on first use.
func (l *termLine) ensureRows() {
	if l.rows.ring == nil {
		l.rows.ring = make([]storedRow, l.h())
		l.setMarginRows(0, l.h()-1)
	}
}

// setHeight follows a change of the terminal's height: the cursor keeps its row
// when it still fits, else the rows move up until it does.
func (l *termLine) setHeight(rows int) {
	if rows == l.height {
		return
	}
	l.height = rows
	if l.rows.ring == nil {
		return
	}
	h := l.h()
	shift := max(0, l.y-(h-1))
	l.rows = resized(l.rows, h, shift)
	if l.other.ring != nil {
		l.other = resized(l.other, h, shift)
	}
	l.y -= shift
	l.saveY = max(0, min(l.saveY-shift, h-1))
	l.setMarginRows(0, h-1)
}

// resized returns the rows of s on a screen h rows high whose first row was row
// shift of s.
func resized(s rowSet, h, shift int) rowSet {
	n := rowSet{ring: make([]storedRow, h)}
	for y := range h {
		if old := y + shift; old < len(s.ring) {
			n.ring[y] = *s.at(old)
		}
	}
	return n
}

// leave stores the row the cursor is on, which the stream shows as it is (flush
// was called), ending at the end of dst.
func (l *termLine) leave(dst []byte) {
	l.ensureRows()
	r := l.rows.at(l.y)
	r.indent = l.indent
	switch {
	case l.edited:
		r.form = rowCells
		r.cells, l.cells = l.cells, r.cells[:0]
	case len(l.saved) > 0:
		r.form = rowText
		r.text = append(append(r.text[:0], l.saved...), dst[l.at:]...)
	case len(dst) > l.at:
		// Copied at the end of the write, if still needed then.
		r.form, r.from, r.to = rowPending, l.at, len(dst)
		l.notePending()
	default:
		r.form = rowBlank
	}
}

func (l *termLine) notePending() {
	if l.pendingAll {
		return
	}
	if len(l.pending) >= len(l.rows.ring) {
		l.pendingAll, l.pending = true, l.pending[:0]
		return
	}
	i := l.rows.top + l.y
	if i >= len(l.rows.ring) {
		i -= len(l.rows.ring)
	}
	l.pending = append(l.pending, int32(i))
}

// keepPending copies the text of the rows stored during a write out of its
// output, dst.
func (l *termLine) keepPending(dst []byte) {
	keep := func(r *storedRow) {
		if r.form == rowPending {
			r.text = append(r.text[:0], dst[r.from:r.to]...)
			r.form = rowText
			if len(r.text) == 0 {
				r.form = rowBlank
			}
		}
	}
	n := len(l.rows.ring)
	if l.pendingAll {
		for i := range l.rows.ring {
			keep(&l.rows.ring[i])
		}
	} else {
		for _, i := range l.pending {
			keep(&l.rows.ring[i])
		}
		i := l.scrolledLast
		for range min(l.scrolled, n) {
			keep(&l.rows.ring[i])
			if i--; i < 0 {
				i = n - 1
			}
		}
	}
	l.pending, l.pendingAll, l.scrolled = l.pending[:0], false, 0
}

// load makes the row under the cursor the current one, at column col. A row
// that holds text is kept as cells, and as shown: the stream holds it already,
// on a line that ended, so it is passed on again only once it changes.
func (l *termLine) load(dst []byte, col int, carried, moved bool) {
	r := l.rows.at(l.y)
	l.startRow(dst, col, carried)
	l.revisited = moved
	switch r.form {
	case rowBlank:
		return
	case rowCells:
		l.cells, r.cells = r.cells, l.cells[:0]
		if w := l.w(); len(l.cells) > w {
			l.cells = l.cells[:w]
			l.fixWide()
		}
	case rowText, rowPending:
		text := r.text
		if r.form == rowPending {
			text = dst[r.from:r.to]
		}
		if len(text) == 0 {
			return
		}
		l.saved = append(l.saved[:0], text...)
		l.indent = min(r.indent, l.w())
		l.materialize(dst)
	}
	r.form = rowBlank
	l.indent = min(r.indent, l.w())
	l.edited, l.detached, l.revisited = true, true, true
	l.shown = l.render(l.shown[:0])
}

// nextRowBlank reports whether the row a line feed goes to holds nothing.
func (l *termLine) nextRowBlank() bool {
	switch {
	case l.rows.ring == nil || l.y == l.marginBottom:
		return true
	case l.y == l.h()-1:
		return false // the cursor stays on this row
	}
	return l.rows.at(l.y+1).form == rowBlank
}

// scrollRows scrolls the rows from top to bottom by n, up or down. Rows that
// move within the ring are no longer where the list of pending rows says.
func (l *termLine) scrollRows(top, bottom, n int, up bool) {
	if top != 0 || bottom != len(l.rows.ring)-1 || !up {
		l.pendingAll = true
	}
	if top <= l.startY && l.startY <= bottom {
		l.startScrolled = true
	}
	if up && top == 0 && bottom == len(l.rows.ring)-1 {
		l.scrolledOff += uint64(min(n, bottom+1))
	}
	if up {
		l.rows.scrollUp(top, bottom, n)
	} else {
		l.rows.scrollDown(top, bottom, n)
	}
}

// down moves the cursor to the next row, to column col: at the bottom of the
// scrolling region the region scrolls up.
func (l *termLine) down(dst []byte, col int, carried bool) {
	switch {
	case l.y == l.marginBottom:
		l.scrollRows(l.marginTop, l.marginBottom, 1, true)
	case l.y < l.h()-1:
		l.y++
	}
	l.load(dst, col, carried, l.rows.at(l.y).form != rowBlank)
}

// endRow passes on what changed of the current row and stores it. It returns
// whether the stream's line holds text.
func (l *termLine) endRow(dst []byte) ([]byte, bool) {
	dst = l.flush(dst)
	text := l.hasText(dst)
	l.leave(dst)
	return dst, text
}

// moveRow moves the cursor to row y (within the screen) and column col.
func (l *termLine) moveRow(dst []byte, y, col int) []byte {
	l.ensureRows()
	y = max(0, min(y, l.h()-1))
	if y == l.y {
		l.moveTo(col)
		return dst
	}
	dst, text := l.endRow(dst)
	if text {
		dst = append(dst, '\n')
	}
	l.y = y
	l.load(dst, col, false, true)
	return dst
}

// up returns the row n rows above the cursor, stopping at the top margin.
func (l *termLine) up(n int) int {
	l.ensureRows()
	if l.y >= l.marginTop {
		return max(l.y-n, l.marginTop)
	}
	return max(l.y-n, 0)
}

// below returns the row n rows below the cursor, stopping at the bottom margin.
func (l *termLine) below(n int) int {
	l.ensureRows()
	if l.y <= l.marginBottom {
		return min(l.y+n, l.marginBottom)
	}
	return min(l.y+n, l.h()-1)
}

// rowAt returns the row that CUP and VPA mean by n (from 1), in origin mode
// within the scrolling region.
func (l *termLine) rowAt(n int) int {
	l.ensureRows()
	if l.origin {
		return min(l.marginTop+n-1, l.marginBottom)
	}
	return n - 1
}

// scroll scrolls the rows from top to bottom by n, up or down, and goes on on
// the row under the cursor, at column col.
func (l *termLine) scroll(dst []byte, top, bottom, n int, up bool, col int) []byte {
	l.ensureRows()
	dst, text := l.endRow(dst)
	if text {
		dst = append(dst, '\n')
	}
	l.scrollRows(top, bottom, n, up)
	l.load(dst, col, false, true)
	return dst
}

// reverseIndex moves the cursor up a row; at the top margin the region
// scrolls down (RI).
func (l *termLine) reverseIndex(dst []byte) []byte {
	l.ensureRows()
	if l.y == l.marginTop {
		return l.scroll(dst, l.marginTop, l.marginBottom, 1, false, l.col)
	}
	return l.moveRow(dst, l.y-1, l.col)
}

// insertLines inserts (or deletes) n rows at the cursor's, within the
// scrolling region (IL, DL).
func (l *termLine) insertLines(dst []byte, n int, insert bool) []byte {
	l.ensureRows()
	if l.y < l.marginTop || l.y > l.marginBottom {
		return dst
	}
	return l.scroll(dst, l.y, l.marginBottom, n, !insert, 0)
}

// setMargins sets the scrolling region (DECSTBM) and homes the cursor.
func (l *termLine) setMargins(dst []byte, top, bottom int) []byte {
	l.ensureRows()
	if bottom <= 0 || bottom > l.h() {
		bottom = l.h()
	}
	top = max(top, 1)
	if top >= bottom {
		return dst
	}
	l.setMarginRows(top-1, bottom-1)
	return l.moveRow(dst, l.rowAt(1), 0)
}

// eraseInDisplay erases from the cursor to the end of the screen (0), from its
// start to the cursor (1) or all of it (2) (ED). Text written on erased rows
// afterwards is new.
func (l *termLine) eraseInDisplay(dst []byte, mode int) []byte {
	l.ensureRows()
	switch mode {
	case 0:
		l.rows.clear(l.y+1, l.h())
		return l.eraseInLine(dst, 0)
	case 1:
		l.rows.clear(0, l.y)
		return l.eraseInLine(dst, 1)
	case 2:
		l.rows.clear(0, l.h())
		return l.clearRow(dst)
	}
	return dst
}

// clearRow blanks the cursor's row; the stream's line ends.
func (l *termLine) clearRow(dst []byte) []byte {
	dst = l.flush(dst)
	if l.hasText(dst) {
		dst = append(dst, '\n')
	}
	l.startRow(dst, l.col, false)
	l.revisited = true
	return dst
}

// setAlternate switches to the alternate screen, blank, or back to the main
// screen, as it was.
func (l *termLine) setAlternate(dst []byte, on bool) []byte {
	l.ensureRows()
	if on == l.alternate {
		return dst
	}
	dst, text := l.endRow(dst)
	if text {
		dst = append(dst, '\n')
	}
	// The rows swapped out keep no text of this write.
	l.keepPending(dst)
	l.rows, l.other = l.other, l.rows
	if l.rows.ring == nil {
		l.rows.ring = make([]storedRow, l.h())
	}
	if on {
		l.rows.clear(0, l.h())
	}
	l.alternate = on
	l.load(dst, l.col, false, true)
	return dst
}

// resetRows forgets all rows (RIS).
func (l *termLine) resetRows(dst []byte) []byte {
	dst = l.flush(dst)
	if l.hasText(dst) {
		dst = append(dst, '\n')
	}
	if l.alternate {
		l.rows, l.other = l.other, l.rows
		l.alternate = false
	}
	if l.rows.ring != nil {
		l.rows.clear(0, l.h())
	}
	l.y, l.origin = 0, false
	l.setMarginRows(0, l.h()-1)
	l.startRow(dst, 0, false)
	return dst
}
