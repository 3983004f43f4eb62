package engine

import (
	"bytes"

	"github.com/clai-sh/clai/playbooks/pattern"
)

// On a screen, only what changed since the last answer, clai's or the person's at
// the terminal, may act: the question answered stays on screen after the answer,
// and a spinner redrawing elsewhere, or the answer echoed after the question, must
// not make the question new again.
//
// From each answer on, the engine keeps the screen as it last looked at it and marks
// the cells that differ each time it looks again (at every settle), carrying the
// marks along when the screen scrolls. A match is fresh when any of its cells is
// marked: text that went away and came back is fresh, text that stayed is not.

// changes tracks which cells of the screen changed since the last answer.
type changes struct {
	tracking bool
	version  uint64   // the screen version lines is of
	lines    [][]byte // the screen as last looked at, row by row
	dirty    [][]bool // per row, per byte of lines: changed since the answer
}

// markSent starts over at an answer: nothing on the screen as it is now is fresh.
func (e *Engine) markSent() {
	c := &e.changes
	c.tracking, c.version = true, e.scr.Version()
	c.lines = bytes.Split(e.view(), []byte("\n"))
	c.dirty = make([][]bool, len(c.lines))
	for i, l := range c.lines {
		c.dirty[i] = make([]bool, len(l))
	}
}

// observe marks what differs between the screen text (of the current version) and
// the screen as last looked at.
func (e *Engine) observe(text []byte) {
	c := &e.changes
	if !c.tracking || c.version == e.scr.Version() {
		return
	}
	lines := bytes.Split(text, []byte("\n"))
	shift := scrolled(c.lines, lines)
	dirty := make([][]bool, len(lines))
	for i, line := range lines {
		d := make([]bool, len(line))
		j := i + shift
		if j >= len(c.lines) {
			for k := range d {
				d[k] = true // scrolled in
			}
		} else {
			was := c.lines[j]
			for k := range d {
				d[k] = k >= len(was) || line[k] != was[k] || k < len(c.dirty[j]) && c.dirty[j][k]
			}
		}
		dirty[i] = d
	}
	c.lines, c.dirty, c.version = lines, dirty, e.scr.Version()
}

// scrolled returns how many rows now moved up from was: the shift that lines up
// the most non-blank rows, the smallest on a tie.
func scrolled(was, now [][]byte) int {
	best, bestSame := 0, -1
	for k := range len(was) {
		same := 0
		for i := 0; i+k < len(was) && i < len(now); i++ {
			if len(now[i]) > 0 && bytes.Equal(now[i], was[i+k]) {
				same++
			}
		}
		if same > bestSame {
			best, bestSame = k, same
		}
	}
	return best
}

// findFresh returns the leftmost fresh match of m in text; on a stream (whose
// window holds only what came after the last answer), or before the first
// answer, simply the leftmost match.
func (e *Engine) findFresh(m *pattern.Matcher, text []byte) (hit, bool) {
	if e.scr == nil || !e.changes.tracking {
		return e.locs.find(m, text)
	}
	e.observe(text)
	best := hit{start: -1}
	for _, p := range m.Patterns {
		if p.Kind == pattern.EOF {
			continue
		}
		p.FindEach(text, func(loc []int) bool {
			if best.start >= 0 && loc[0] >= best.start {
				return false
			}
			if e.fresh(text, loc[0], loc[1]) {
				best = hit{start: loc[0], end: loc[1], loc: loc, pattern: p}
				return false
			}
			return true
		})
	}
	return best, best.start >= 0
}

// fresh reports whether any cell of text between start and end changed since the
// last answer.
func (e *Engine) fresh(text []byte, start, end int) bool {
	dirty := e.changes.dirty
	row := bytes.Count(text[:start], []byte("\n"))
	col := start - (bytes.LastIndexByte(text[:start], '\n') + 1)
	for pos := start; pos < max(end, start+1) && pos < len(text); pos++ {
		if text[pos] == '\n' {
			row, col = row+1, 0
			continue
		}
		if row >= len(dirty) || col >= len(dirty[row]) || dirty[row][col] {
			return true
		}
		col++
	}
	return false
}
