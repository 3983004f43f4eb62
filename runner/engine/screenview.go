package engine

import (
	"bytes"
	"slices"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/screen"
)

// screenView is the view of screen matching: the virtual screen, matched once
// it has been still for settings.settle. What was answered stays on screen, so
// only what changed since the last answer, clai's or the person's at the
// terminal, may act: the question answered stays on screen after the answer,
// and a spinner redrawing elsewhere, or the answer echoed after the question, must
// not make the question new again.
//
// From each answer on, the view keeps the screen as it last looked at it and marks
// the cells that differ each time it looks again (at every settle), carrying the
// marks along when the screen scrolls. A match is fresh when any of its cells is
// marked: text that went away and came back is fresh, text that stayed is not.
// A match that does not answer (a step that only waits for its text) unmarks
// its cells and those above it, as the stream's window drops them.
type screenView struct {
	scr *screen.Screen
	// seen is the screen's version (see version) when it was last matched,
	// sentAt its version at clai's last answer; sent says whether clai
	// answered yet.
	seen, sentAt uint64
	sent         bool
	// atCursor is the screen's text as text returns it, for screen version
	// atVersion.
	atCursor  []byte
	atVersion uint64
	// changes marks what changed on the screen since the last answer.
	changes changes
	// present and dangerShown count the copies of each rule's and danger
	// rule's text on the screen when it was last counted (they fire when a
	// copy appears), and appear says whose rule's text appeared then.
	present map[*playbooks.Rule]int
	appear  map[*playbooks.Rule]bool
	// shown holds the texts of each rule's copies when last counted: a copy
	// whose text none of them had is a new question in the place of the old
	// one (a dialog drawn again on the same rows for another command).
	shown map[*playbooks.Rule][]string
	// framed says which rows showed other text at the end of a frame (a
	// program's synchronized update) between the last two looks: what they
	// show went away meanwhile and came back, so it is new.
	framed      []bool
	dangerShown map[*playbooks.Danger]int
	// dangerStreamed says which danger rules the stream fired since the screen
	// was last scanned.
	dangerStreamed map[*playbooks.Danger]bool
	// off is how many rows have left the top of the screen as it scrolled
	// up as a whole (see scrolledOff).
	off uint64
}

// newScreenView returns the view of a blank screen of rows×cols.
func newScreenView(rows, cols int) *screenView {
	return &screenView{
		scr:            screen.New(rows, cols),
		present:        map[*playbooks.Rule]int{},
		appear:         map[*playbooks.Rule]bool{},
		shown:          map[*playbooks.Rule][]string{},
		dangerShown:    map[*playbooks.Danger]int{},
		dangerStreamed: map[*playbooks.Danger]bool{},
	}
}

// add takes nothing in: the screen is written what the program wrote.
func (v *screenView) add([]byte) {}

// addElsewhere takes in nothing: the screen shows rows where they are drawn.
func (v *screenView) addElsewhere([]byte) {}

func (v *screenView) promptText() []byte { return v.text() }

// write writes data to the screen, which is matched once it has been still for
// settle.
func (v *screenView) write(data []byte) ([]byte, bool) {
	v.scr.Write(data)
	return v.scr.Replies(), true
}

// scrolledOff keeps the count of rows scrolled off the top, which observe
// lines the rows up by.
func (v *screenView) scrolledOff(rows uint64) { v.off = rows }

// version is the screen's version, with the rows scrolled off the top
// counted too: a screen that scrolled by a whole number of repeats of what
// it shows (a prompt asked again and again, with the same answer) shows the
// same text as before, but its rows are new. Both counts only grow, so
// their sum changes whenever either does.
func (v *screenView) version() uint64 { return v.scr.Version() + v.off }

func (v *screenView) resize(rows, cols int) { v.scr.Resize(rows, cols) }

// paused marks what the screen shows as a frame the program showed.
func (v *screenView) paused() { v.scr.EndFrame() }

// text returns the visible screen, with the blanks before the cursor, so that
// a prompt's trailing space is seen.
func (v *screenView) text() []byte {
	// Copied once a version, not at each look: an evaluation looks several
	// times. A new version gets a new copy, so what observe keeps of the last
	// one stays as it was.
	if ver := v.scr.Version(); v.atCursor == nil || ver != v.atVersion {
		v.atCursor, v.atVersion = []byte(v.scr.TextAtCursor()), ver
	}
	return v.atCursor
}

// look marks what changed since the screen was last looked at.
func (v *screenView) look() ([]byte, bool) {
	ver := v.version()
	if ver == v.seen {
		return nil, false
	}
	v.seen = ver
	v.scr.MarkPlain()
	v.framed = v.scr.ChangedInFrames(v.framed[:0])
	v.scr.MarkFrames()
	text := v.text()
	v.observe(text)
	if c := &v.changes; c.tracking {
		// What a frame took away and brought back is fresh.
		for y, d := range c.dirty {
			if y < len(v.framed) && v.framed[y] {
				for k := range d {
					d[k] = true
				}
			}
		}
	}
	return text, true
}

func (v *screenView) changed() bool { return v.version() != v.seen }

// settling reports whether the screen holds output back or changed since it
// was last matched.
func (v *screenView) settling() (waits, plain bool) {
	waits = v.scr.Pending() || v.version() != v.seen
	return waits, v.scr.Plain()
}

// consume marks the screen's text up to end as stale: it stays in sight, but
// what a match used up, and what is above it, does not act again. Before the
// first answer all the screen is fresh, and from then on the marks are kept.
func (v *screenView) consume(end int) {
	text := v.text()
	if v.changes.tracking {
		v.observe(text)
	} else {
		v.track(true)
	}
	dirty := v.changes.dirty
	row, col := 0, 0
	for pos := 0; pos < end && pos < len(text); pos++ {
		if text[pos] == '\n' {
			row, col = row+1, 0
			continue
		}
		if row < len(dirty) && col < len(dirty[row]) {
			dirty[row][col] = false
		}
		col++
	}
}

// answered starts the marks over: nothing on the screen as it is now is fresh.
func (v *screenView) answered(byClai bool) {
	if byClai {
		v.sentAt, v.sent = v.version(), true
	}
	v.track(false)
}

// asAnswered reports whether nothing changed on the screen since clai's last
// answer.
func (v *screenView) asAnswered() bool { return v.sent && v.seen == v.sentAt }

// stale reports whether no cell of text between start and end changed since
// the last answer; before the first answer all of the screen is fresh.
func (v *screenView) stale(text []byte, start, end int) bool {
	v.observe(text)
	return v.changes.tracking && !v.fresh(text, start, end)
}

// denied makes the screen as it stands stale, before it is written the
// dangerous text: what is written after it is fresh.
func (v *screenView) denied() { v.track(false) }

// count counts the copies of each rule's text on the screen. A rule's text
// appears when there is one more copy of it than before (the same question
// asked again below the first) or a copy whose text no copy had before (the
// question asked anew in its place: a dialog drawn again on the same rows for
// another command). A copy redrawn as it was is not new.
func (v *screenView) count(rules []*playbooks.Rule, text []byte) {
	clear(v.appear)
	framed := slices.Contains(v.framed, true)
	for _, r := range rules {
		was := v.shown[r]
		var now []string
		n := 0
		appeared := false
		for _, p := range r.Match.Patterns {
			rows := rowCounter{text: text}
			p.FindEach(text, func(loc []int) bool {
				n++
				copyText := text[loc[0]:loc[1]]
				if !appeared {
					seen := slices.ContainsFunc(was, func(w string) bool { return w == string(copyText) })
					appeared = !seen || framed && v.inFrames(rows.at(loc[0]), rows.at(loc[1]))
				}
				if len(now) < maxCopies {
					now = append(now, string(copyText))
				}
				return true
			})
		}
		v.appear[r] = n > v.present[r] || appeared && len(was) > 0
		v.present[r], v.shown[r] = n, now
	}
	// A frame's rows count once: at the count after the look that found them.
	clear(v.framed)
}

// inFrames reports whether a row from first to last showed other text at the
// end of a frame between the last two looks.
func (v *screenView) inFrames(first, last int) bool {
	for y := first; y <= last && y < len(v.framed); y++ {
		if v.framed[y] {
			return true
		}
	}
	return false
}

// rowCounter tells the row of positions in text, asked in increasing order,
// counting each line end once.
type rowCounter struct {
	text     []byte
	pos, row int
}

// at returns the row of text[pos], pos no less than asked before.
func (c *rowCounter) at(pos int) int {
	c.row += bytes.Count(c.text[c.pos:pos], []byte("\n"))
	c.pos = pos
	return c.row
}

// maxCopies bounds the texts of a rule's copies that count keeps.
const maxCopies = 16

func (v *screenView) appeared(r *playbooks.Rule) bool { return v.appear[r] }

func (v *screenView) rearm(r *playbooks.Rule) { v.present[r], v.shown[r] = 0, nil }

// streamedDanger keeps a rule's first hit in the stream while its text is not
// on screen: the same dangerous text usually reaches both the stream and the
// screen, often more than once (a dialog and its transcript line), and counts
// once while it is on screen, and once for all the stream shows of it until
// the screen is next looked at.
func (v *screenView) streamedDanger(hits []dangerHit) []dangerHit {
	kept := hits[:0]
	for _, h := range hits {
		if v.dangerShown[h.rule] == 0 && !v.dangerStreamed[h.rule] {
			v.dangerStreamed[h.rule] = true
			kept = append(kept, h)
		}
	}
	return kept
}

// shownDanger runs the danger rules on the visible screen, where a program
// that draws with cursor jumps shows text the stream never holds. A rule counts
// once each time its text appears (one more copy of it on screen than before),
// unless the stream showed it first.
func (v *screenView) shownDanger(rules []*playbooks.Danger, text []byte) []dangerHit {
	var hits []dangerHit
	for _, r := range rules {
		copies, last := countMatches(r.Match, text)
		if copies > v.dangerShown[r] && (v.dangerShown[r] > 0 || !v.dangerStreamed[r]) {
			hits = append(hits, dangerHit{rule: r, text: last})
		}
		v.dangerShown[r] = copies
		v.dangerStreamed[r] = false
	}
	return hits
}

func (v *screenView) screen() string { return v.scr.Text() }

func (v *screenView) coloured() string { return v.scr.ANSI() }

// tail returns the screen.
func (v *screenView) tail(redact func(string) string) string { return redact(v.scr.Text()) }

func (v *screenView) appCursor() bool { return v.scr.AppCursor() }

func (v *screenView) cursorRow(text []byte) []byte {
	row, _ := v.scr.Cursor()
	for ; row > 0; row-- {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			return nil
		}
		text = text[i+1:]
	}
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		return text[:i]
	}
	return text
}

func (v *screenView) shadedMenus(text []byte) []menu { return shadedMenus(text, v.scr) }

// changes tracks which cells of the screen are fresh: changed since the last
// answer, and not used up by a match since.
type changes struct {
	tracking bool
	version  uint64   // the screen version lines is of
	off      uint64   // the rows scrolled off the top then (see scrolledOff)
	lines    [][]byte // the screen as last looked at, row by row
	dirty    [][]bool // per row, per byte of lines: fresh
}

// track starts the marks over with the screen as it is now, all of it fresh
// or, at an answer, none of it.
func (v *screenView) track(fresh bool) {
	c := &v.changes
	c.tracking, c.version, c.off = true, v.version(), v.off
	c.lines = bytes.Split(v.text(), []byte("\n"))
	c.dirty = make([][]bool, len(c.lines))
	for i, l := range c.lines {
		c.dirty[i] = make([]bool, len(l))
		if fresh {
			for k := range c.dirty[i] {
				c.dirty[i][k] = true
			}
		}
	}
}

// observe marks what differs between the screen text (of the current version) and
// the screen as last looked at.
func (v *screenView) observe(text []byte) {
	c := &v.changes
	if !c.tracking || c.version == v.version() {
		return
	}
	lines := bytes.Split(text, []byte("\n"))
	shift := scrolled(c.lines, lines, v.off-c.off)
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
	c.lines, c.dirty, c.version, c.off = lines, dirty, v.version(), v.off
}

// scrolled returns how many rows now moved up from was. off is how many the
// stripper saw scroll off the top meanwhile: it is the shift where it lines
// up at least half the rows it can (see linedUp), and every row where it is
// more than was holds. Else, or where the screen did not scroll, it is the
// shift that lines up the most non-blank rows, the smallest on a tie. Rows
// that repeat (a prompt asked again and again, with the same answer) line up
// at any shift of whole repeats, the smallest best of all, though the rows at
// the bottom came up from below.
func scrolled(was, now [][]byte, off uint64) int {
	switch {
	case off >= uint64(len(was)):
		return len(was)
	case off > 0 && linedUp(was, now, int(off)):
		return int(off)
	}
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

// linedUp reports whether, shifted up by k, at least half the non-blank rows
// of now that have a row of was to line up with are the same as it.
func linedUp(was, now [][]byte, k int) bool {
	same, compared := 0, 0
	for i := 0; i+k < len(was) && i < len(now); i++ {
		if len(now[i]) == 0 {
			continue
		}
		compared++
		if bytes.Equal(now[i], was[i+k]) {
			same++
		}
	}
	return 2*same >= compared
}

// find returns the leftmost fresh match of m in text; before the first answer,
// simply the leftmost match.
func (v *screenView) find(l *locs, m *pattern.Matcher, text []byte) (hit, bool) {
	if !v.changes.tracking {
		return l.find(m, text)
	}
	v.observe(text)
	best := hit{start: -1}
	for _, p := range m.Patterns {
		if p.Kind == pattern.EOF {
			continue
		}
		p.FindEach(text, func(loc []int) bool {
			if best.start >= 0 && loc[0] >= best.start {
				return false
			}
			if v.fresh(text, loc[0], loc[1]) {
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
func (v *screenView) fresh(text []byte, start, end int) bool {
	dirty := v.changes.dirty
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
