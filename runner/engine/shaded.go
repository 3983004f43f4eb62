package engine

import (
	"strings"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/runner/screen"
)

// Menus drawn with curses or newt (dialog, whiptail) show no marker in the text:
// the current option is set off by its shade alone, in reverse video or on a
// background of its own, and so is the current button of a row (<Ok> <Cancel>).
// Options are lines that start in the same column, one below the other; a
// dialog or whiptail checklist or radiolist puts a box in front of each
// ("[*] apple", "( ) banana"), and a menu of tags and items aligns the items in
// a column of their own ("1 Apple", "banana  yellow fruit").

var (
	buttonRow = &lazyre.Regexp{Expr: `^<[^<>]*>(?:\s+<[^<>]*>)*$`}
	button    = &lazyre.Regexp{Expr: `<([^<>]*)>`}
	boxed     = &lazyre.Regexp{Expr: `^(\[[ *xX]\]|\([ *xX]\))\s+(\S.*)$`}
	tagged    = &lazyre.Regexp{Expr: `^\S+\s+(\S.*)$`}
)

// shadedLine is a line of the screen as a shaded menu is read from it.
type shadedLine struct {
	y    int
	text string // without the sides of boxes and the blanks around it
	cols []int  // the column of each byte of text
	// first and end are the columns of text's first cell and the one past its
	// last.
	first, end int
}

// shadedMenus returns the menus on the screen whose current option shows only by
// its shade: lists of two or more lines that start in the same column, exactly
// one of them set off from the rest, and rows of buttons. A row of buttons none
// of which is set off is returned too, unmarked: the focus is elsewhere.
func shadedMenus(text []byte, scr *screen.Screen) []menu {
	lines := shadedLines(text, scr)
	var menus []menu
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case l.text == "":
			i++
		case buttonRow.Get().MatchString(l.text):
			menus = append(menus, buttons(l, scr))
			i++
		default:
			j := i + 1
			for j < len(lines) && lines[j].text != "" && lines[j].first == l.first && !buttonRow.Get().MatchString(lines[j].text) {
				j++
			}
			if m, ok := shadedList(lines[i:j], scr); ok {
				menus = append(menus, m)
			}
			i = j
		}
	}
	return menus
}

// shadedLines splits the screen's text into lines and places each on the screen.
func shadedLines(text []byte, scr *screen.Screen) []shadedLine {
	_, width := scr.Size()
	var lines []shadedLine
	for y, l := range strings.Split(string(text), "\n") {
		start, end := unframedSpan(l)
		inner := l[start:end]
		trimmed := strings.TrimLeft(inner, " ")
		start += len(inner) - len(trimmed)
		end = start + len(strings.TrimRight(trimmed, " "))
		line := shadedLine{y: y, text: l[start:end]}
		if line.text != "" {
			cols := scr.Columns(nil, y)
			line.cols = cols[start:end]
			line.first, line.end = cols[start], width
			if end < len(cols) {
				line.end = cols[end]
			}
		}
		lines = append(lines, line)
	}
	return lines
}

// ground returns the shade most cells of the screen have between rows top and
// bottom and columns left and right (all included): the background the options
// of a menu stand on.
func ground(scr *screen.Screen, top, bottom, left, right int) screen.Shade {
	rows, cols := scr.Size()
	count := map[screen.Shade]int{}
	best, most := screen.ShadeDefault, 0
	for y := max(top, 0); y <= min(bottom, rows-1); y++ {
		for x := max(left, 0); x <= min(right, cols-1); x++ {
			sh := scr.ShadeAt(y, x)
			count[sh]++
			if count[sh] > most {
				best, most = sh, count[sh]
			}
		}
	}
	return best
}

// standsOut reports whether a cell of row y between columns from and to (to
// excluded) has another shade than ground.
func standsOut(scr *screen.Screen, y, from, to int, ground screen.Shade) bool {
	for x := from; x < to; x++ {
		if scr.ShadeAt(y, x) != ground {
			return true
		}
	}
	return false
}

// lineStandsOut reports whether a cell of line l has another shade than ground,
// one that not every line of the list has in that column: dialog without colours
// sets the first letter of every tag off the same way, which marks no option.
func lineStandsOut(scr *screen.Screen, lines []shadedLine, l shadedLine, ground screen.Shade) bool {
	for x := l.first; x < l.end; x++ {
		sh := scr.ShadeAt(l.y, x)
		if sh == ground {
			continue
		}
		for _, o := range lines {
			if scr.ShadeAt(o.y, x) != sh {
				return true
			}
		}
	}
	return false
}

// shadedList reads lines that start in the same column as a menu, if exactly one
// of them stands out from the background around them all.
func shadedList(lines []shadedLine, scr *screen.Screen) (menu, bool) {
	if len(lines) < 2 {
		return menu{}, false
	}
	left, right := lines[0].first, 0
	for _, l := range lines {
		right = max(right, l.end)
	}
	bg := ground(scr, lines[0].y-1, lines[len(lines)-1].y+1, left-1, right)
	current := -1
	for i, l := range lines {
		if lineStandsOut(scr, lines, l, bg) {
			if current >= 0 {
				return menu{}, false
			}
			current = i
		}
	}
	if current < 0 {
		return menu{}, false
	}
	m := menu{options: make([]option, len(lines))}
	for i, l := range lines {
		m.options[i] = option{label: l.text, marked: i == current}
	}
	unbox(&m, lines)
	untag(&m, lines)
	return m, true
}

// unbox takes the boxes of a checklist or radiolist off the options' labels, when
// every option has one of the same kind.
func unbox(m *menu, lines []shadedLine) {
	var kind byte
	for i, o := range m.options {
		b := boxed.Get().FindStringSubmatch(o.label)
		if b == nil || i > 0 && b[1][0] != kind {
			return
		}
		kind = b[1][0]
	}
	m.ticks = kind
	for i := range m.options {
		o := &m.options[i]
		b := boxed.Get().FindStringSubmatchIndex(o.label)
		o.ticked = o.label[1] != ' '
		o.label = o.label[b[4]:]
		lines[i].cols = lines[i].cols[b[4]:]
	}
}

// untag gives each option its item as another name, when the options are tags
// and items in two aligned columns ("1 Apple", "banana  yellow fruit").
func untag(m *menu, lines []shadedLine) {
	col := -1
	for i, o := range m.options {
		t := tagged.Get().FindStringSubmatchIndex(o.label)
		if t == nil || i > 0 && lines[i].cols[t[2]] != col {
			return
		}
		col = lines[i].cols[t[2]]
	}
	for i := range m.options {
		o := &m.options[i]
		o.alt = o.label[tagged.Get().FindStringSubmatchIndex(o.label)[2]:]
	}
}

// buttons reads a row of buttons (<Ok> <Cancel>, < Yes > <  No  >): each is an
// option, the one that stands out from the background around the row is marked.
// With more than one standing out, none is marked.
func buttons(l shadedLine, scr *screen.Screen) menu {
	bg := ground(scr, l.y-1, l.y+1, l.first-1, l.end)
	m := menu{horizontal: true, buttons: true}
	marked := 0
	for _, loc := range button.Get().FindAllStringSubmatchIndex(l.text, -1) {
		end := l.end
		if loc[1] < len(l.cols) {
			end = l.cols[loc[1]]
		}
		o := option{label: strings.TrimSpace(l.text[loc[2]:loc[3]]), alt: l.text[loc[0]:loc[1]]}
		if standsOut(scr, l.y, l.cols[loc[0]], end, bg) {
			o.marked = true
			marked++
		}
		m.options = append(m.options, o)
	}
	if marked > 1 {
		for i := range m.options {
			m.options[i].marked = false
		}
		m.unclear = true
	}
	return m
}
