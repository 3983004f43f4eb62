package stream

// The cursor's moves along its row: to a column, to tab stops, and back to
// where it was saved.

// moveTo moves the cursor to column col of its row, within the width.
func (l *termLine) moveTo(col int) {
	l.col = max(0, min(col, l.w()-1))
	l.wrapPending = false
}

// tab moves the cursor n tab stops forward (HT, CHT).
func (l *termLine) tab(n int) { l.tabStops(n, l.nextTab) }

// backTab moves the cursor n tab stops back (CBT).
func (l *termLine) backTab(n int) { l.tabStops(n, l.prevTab) }

// tabStops moves the cursor n stops, each found by next from the last; a count
// over the width stops at it, where the cursor no longer moves.
func (l *termLine) tabStops(n int, next func(col int) int) {
	col := l.col
	for range min(n, l.w()) {
		col = next(col)
	}
	l.moveTo(col)
}

func (l *termLine) nextTab(col int) int {
	last := l.w() - 1
	if l.tabs == nil {
		return min((col/8+1)*8, last)
	}
	for c := col + 1; c < min(len(l.tabs), last); c++ {
		if l.tabs[c] {
			return c
		}
	}
	return last
}

func (l *termLine) prevTab(col int) int {
	if l.tabs == nil {
		return max((col-1)/8*8, 0)
	}
	for c := min(col, len(l.tabs)) - 1; c > 0; c-- {
		if l.tabs[c] {
			return c
		}
	}
	return 0
}

// setTab sets a tab stop at the cursor (HTS).
func (l *termLine) setTab() {
	l.ownTabs()
	if l.col < len(l.tabs) {
		l.tabs[l.col] = true
	}
}

// clearTabs clears the tab stop at the cursor (0) or all of them (3).
func (l *termLine) clearTabs(mode int) {
	switch mode {
	case 0:
		l.ownTabs()
		if l.col < len(l.tabs) {
			l.tabs[l.col] = false
		}
	case 3:
		l.ownTabs()
		clear(l.tabs)
	}
}

func (l *termLine) ownTabs() {
	if l.tabs != nil {
		return
	}
	l.tabs = make([]bool, max(l.w(), maxTabs))
	for c := 8; c < len(l.tabs); c += 8 {
		l.tabs[c] = true
	}
}

// maxTabs is how many columns of tab stops are kept once a program sets them.
const maxTabs = 512

func (l *termLine) save() {
	l.saveCol, l.saveY, l.hasSaved, l.saveConceal = l.col, l.y, true, l.conceal
}

// restore puts the cursor where save found it, or home if it was never saved.
func (l *termLine) restore(dst []byte) []byte {
	if !l.hasSaved {
		l.conceal = false
		return l.moveRow(dst, 0, 0)
	}
	l.conceal = l.saveConceal
	return l.moveRow(dst, l.saveY, l.saveCol)
}

// reset returns the terminal to its first state (RIS): modes, and no rows.
func (l *termLine) reset(dst []byte) []byte {
	l.noAutowrap, l.insert, l.hasSaved, l.tabs, l.last = false, false, false, nil, 0
	l.conceal = false
	return l.resetRows(dst)
}
