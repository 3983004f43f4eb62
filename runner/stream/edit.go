package stream

// The edits of a row: erasing, deleting, inserting and repeating characters,
// and the cells they change, with wide characters cut in two made blank.

// edit makes the row editable for a change at the cursor and reports whether
// there is anything to change: a change past the end of the text changes
// nothing.
func (l *termLine) edit(dst []byte, fromStart bool) bool {
	if l.edited {
		return true
	}
	if l.blank(dst) || !fromStart && l.col >= l.end {
		return false
	}
	l.materialize(dst)
	return true
}

// eraseInLine blanks the row from the cursor (0), up to it (1) or all (2).
func (l *termLine) eraseInLine(dst []byte, mode int) []byte {
	if mode > 2 || !l.edit(dst, mode != 0) {
		return dst
	}
	switch mode {
	case 0:
		l.blankCells(l.col, len(l.cells))
	case 1:
		l.blankCells(0, l.col+1)
	case 2:
		l.blankCells(0, len(l.cells))
	}
	return dst
}

// eraseChars blanks n cells from the cursor (ECH).
func (l *termLine) eraseChars(dst []byte, n int) []byte {
	if l.edit(dst, false) {
		l.blankCells(l.col, l.col+n)
	}
	return dst
}

// deleteChars removes n cells at the cursor; the rest of the row moves left (DCH).
func (l *termLine) deleteChars(dst []byte, n int) []byte {
	if !l.edit(dst, false) || l.col >= len(l.cells) {
		return dst
	}
	n = min(n, len(l.cells)-l.col)
	l.cells = append(l.cells[:l.col], l.cells[l.col+n:]...)
	l.fixWide()
	return dst
}

// insertBlanks inserts n blank cells at the cursor; the rest of the row moves
// right and what passes the last column is lost (ICH).
func (l *termLine) insertBlanks(dst []byte, n int) []byte {
	if l.edit(dst, false) {
		l.insertCells(l.col, n)
	}
	return dst
}

func (l *termLine) insertCells(at, n int) {
	if at >= len(l.cells) {
		return
	}
	n = min(n, l.w()-at)
	keep := max(0, min(len(l.cells), l.w()-n)-at)
	l.ensure(at + n + keep)
	l.cells = l.cells[:at+n+keep]
	copy(l.cells[at+n:], l.cells[at:at+keep])
	clear(l.cells[at : at+n])
	l.fixWide()
}

// repeat prints the last printable ASCII character n more times (REP).
func (l *termLine) repeat(dst []byte, n int) []byte {
	if l.last == 0 {
		return dst
	}
	c := l.last
	for range min(n, l.w()) {
		dst = l.put(dst, byteSlice[c:c+1], 1)
	}
	return dst
}

// ensure makes the row at least n cells long.
func (l *termLine) ensure(n int) {
	for len(l.cells) < n {
		l.cells = append(l.cells, cell{})
	}
}

// blankCells blanks the cells from a up to b, and the other half of a wide
// character cut at either end.
func (l *termLine) blankCells(a, b int) {
	b = min(b, len(l.cells))
	if a >= b {
		return
	}
	l.clearWide(a)
	l.clearWide(b - 1)
	clear(l.cells[a:b])
}

// clearWide blanks both halves of the wide character cell k belongs to, if any.
func (l *termLine) clearWide(k int) {
	if k >= len(l.cells) {
		return
	}
	switch l.cells[k].w {
	case 2:
		l.cells[k] = cell{}
		if k+1 < len(l.cells) {
			l.cells[k+1] = cell{}
		}
	case -1:
		l.cells[k] = cell{}
		if k > 0 {
			l.cells[k-1] = cell{}
		}
	}
}

// fixWide blanks the halves of wide characters that lost their other half.
func (l *termLine) fixWide() {
	for k, c := range l.cells {
		switch {
		case c.w == 2 && (k+1 >= len(l.cells) || l.cells[k+1].w != -1):
			l.cells[k] = cell{}
		case c.w == -1 && (k == 0 || l.cells[k-1].w != 2):
			l.cells[k] = cell{}
		}
	}
}
