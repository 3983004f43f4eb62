package engine

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/pattern"
	"github.com/clai-sh/clai/runner/ask"
)

// A menu on screen: numbered options ("1. Yes", "2) No"), the current one marked
// with ❯, ›, ● or >, or options of a marker list indented alike; radio buttons
// (● or ◉ selected, ○ or ◯ not), one a line or side by side ("● Yes / ○ No"). A
// gutter drawn in front of the options (@clack/prompts draws "│  ● React") is not
// part of the line, nor are the sides of a box around them (Gemini CLI's dialogs:
// "│ ● 1. Allow once   │").
var (
	numberedOption = &lazyre.Regexp{Expr: `^\s*([❯›●>]\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$`}
	markedOption   = &lazyre.Regexp{Expr: `^\s*([❯›●◉>])\s+(\S.*?)\s*$`}
	radioOption    = &lazyre.Regexp{Expr: `^\s*[○◯]\s+(\S.*?)\s*$`}
	sideBySide     = &lazyre.Regexp{Expr: `([●◉○◯])\s+([^●◉○◯]*[^●◉○◯\s/])`}
	gutter         = &lazyre.Regexp{Expr: `^\s*[│┃]`}
)

// option is one entry of a menu found on screen.
type option struct {
	label  string
	number string
	marked bool
	// radio: the entry is a radio button, selected or not.
	radio bool
	// alt is another name the option answers to: the item of a tagged option
	// ("Apple" of "1 Apple"), or a button as drawn ("<Ok>").
	alt string
	// ticked: the option's box is ticked, in a checklist or radiolist.
	ticked bool
	// row is the line of the screen the option is on.
	row int
}

// menu is the options of a menu found on screen, top to bottom or left to right.
type menu struct {
	options []option
	// horizontal: the options stand side by side on one line, so the left and
	// right arrow keys move between them.
	horizontal bool
	// ticks is '[' for a checklist and '(' for a radiolist: each option has a
	// box, which Space ticks on the current option.
	ticks byte
	// buttons: the options are a row of buttons (<Ok> <Cancel>); with none
	// marked, the focus is elsewhere and Tab brings it to them.
	buttons bool
	// unclear: more than one option stands out, so none is taken for the
	// current one.
	unclear bool
}

// moves returns the arrow key and how many presses of it take the menu's
// cursor from the option from to the option to.
func (m menu) moves(from, to int) (playbooks.Key, int) {
	forward, back := playbooks.Key("down"), playbooks.Key("up")
	if m.horizontal {
		forward, back = "right", "left"
	}
	if to < from {
		return back, from - to
	}
	return forward, to - from
}

// current returns the index of the marked option, or -1.
func (m menu) current() int {
	for i, o := range m.options {
		if o.marked {
			return i
		}
	}
	return -1
}

// describe lists the options of the menu as a message shows them.
func (m menu) describe() string {
	labels := make([]string, len(m.options))
	for i, o := range m.options {
		labels[i] = o.label
		if m.buttons {
			labels[i] = "<" + o.label + ">"
		}
	}
	kind := "options: "
	if m.buttons {
		kind = "buttons: "
	}
	return kind + strings.Join(labels, " | ")
}

// findMenu returns the last menu on the screen: the last run of consecutive option
// lines, or a line of radio buttons side by side if that comes later.
func findMenu(text string) menu {
	menus := findMenus(text)
	if len(menus) == 0 {
		return menu{}
	}
	return menus[len(menus)-1]
}

// findMenus returns the menus on the screen, top to bottom: each run of
// consecutive option lines, and each line of radio buttons side by side.
func findMenus(text string) []menu {
	var found []menu
	var run []option
	flush := func() {
		if len(run) >= 2 {
			found = append(found, menu{options: run})
		}
		run = nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = gutter.Get().ReplaceAllString(unframe(l), "")
	}
	for i, l := range lines {
		if opts := sideBySideOptions(l); opts != nil {
			for k := range opts {
				opts[k].row = i
			}
			flush()
			found = append(found, menu{options: opts, horizontal: true})
			continue
		}
		if m := numberedOption.Get().FindStringSubmatch(l); m != nil {
			run = append(run, option{label: m[3], number: m[2], marked: m[1] != "", row: i})
			continue
		}
		if m := radioOption.Get().FindStringSubmatch(l); m != nil {
			run = append(run, option{label: m[1], radio: true, row: i})
			continue
		}
		if m := markedOption.Get().FindStringSubmatchIndex(l); m != nil {
			radio := strings.ContainsAny(l[m[2]:m[3]], "●◉")
			if len(run) == 0 && !radio {
				// The marker need not be on the first option.
				run = optionsAbove(lines[:i], utf8.RuneCountInString(l[:m[4]]))
			}
			run = append(run, option{label: l[m[4]:m[5]], marked: true, radio: radio, row: i})
			continue
		}
		// An unmarked entry of a marker list: indented like the marked one. Radio
		// buttons mark every entry, so a line without one ends their list.
		if len(run) > 0 && run[0].number == "" && !run[0].radio && strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" {
			run = append(run, option{label: strings.TrimSpace(l), row: i})
			continue
		}
		if strings.TrimSpace(l) != "" {
			flush()
		}
	}
	flush()
	return found
}

// unframe returns a screen line without the sides of the boxes around it: a
// line that starts with "│" and ends with "│" (spaces around them aside) loses
// both, as many times as boxes are nested, keeping the indentation inside.
func unframe(l string) string {
	start, end := unframedSpan(l)
	return l[start:end]
}

// unframedSpan returns where in l the text unframe keeps starts and ends.
func unframedSpan(l string) (start, end int) {
	end = len(l)
	for {
		t := strings.Trim(l[start:end], " ")
		inner, ok := strings.CutPrefix(t, "│")
		if !ok {
			return start, end
		}
		inner, ok = strings.CutSuffix(inner, "│")
		if !ok {
			return start, end
		}
		// The side is followed by a space of padding, when there is one.
		from := start + strings.Index(l[start:end], "│") + len("│")
		start, end = from, from+len(inner)
		if strings.HasPrefix(l[start:end], " ") {
			start++
		}
	}
}

// sideBySideOptions returns the radio buttons of a line that holds two or more of
// them ("● Yes / ○ No"), or nil.
func sideBySideOptions(line string) []option {
	if strings.IndexAny(strings.TrimSpace(line), "●◉○◯") != 0 {
		return nil
	}
	ms := sideBySide.Get().FindAllStringSubmatch(line, -1)
	if len(ms) < 2 {
		return nil
	}
	opts := make([]option, 0, len(ms))
	for _, m := range ms {
		opts = append(opts, option{label: m[2], marked: m[1] == "●" || m[1] == "◉", radio: true})
	}
	return opts
}

// optionsAbove returns the unmarked options of a marker list that precede its
// marked one: the lines right above it whose text starts in col, the column of
// the marked option's label.
func optionsAbove(lines []string, col int) []option {
	start := len(lines)
	for start > 0 {
		l := lines[start-1]
		label := strings.TrimLeft(l, " ")
		if label == "" || len(l)-len(label) != col || numberedOption.Get().MatchString(l) {
			break
		}
		start--
	}
	var above []option
	for k, l := range lines[start:] {
		above = append(above, option{label: strings.TrimSpace(l), row: start + k})
	}
	return above
}

// findOption returns the menu with the option a choose action names, and the
// option's index there; -1 if no menu has it. Labels are tried before the other
// names options answer to (an item after its tag, a button as drawn), and menus
// in the order given.
func findOption(menus []menu, p *pattern.Pattern) (menu, int) {
	for _, alt := range []bool{false, true} {
		for _, m := range menus {
			for i, o := range m.options {
				name := o.label
				if alt {
					name = o.alt
				}
				if name != "" && labelMatches(p, name) {
					return m, i
				}
			}
		}
	}
	return menu{}, -1
}

// labelMatches reports whether an option's label is the one a choose action names:
// the label starts with the text, or the regex matches it.
func labelMatches(p *pattern.Pattern, label string) bool {
	if p.Kind == pattern.Regex {
		return p.Regexp.MatchString(label)
	}
	return strings.HasPrefix(label, p.Source)
}

// choosing is a choose action under way: keys were sent (to move the cursor, to
// bring the focus, to tick a box) and clai waits for the screen to show their
// effect before it goes on.
type choosing struct {
	action *playbooks.Action
	rule   string
	step   string
	// moves, tabs and ticks count the arrow keys, Tabs and Spaces sent.
	moves, tabs, ticks int
}

// maxChooseTries bounds how often clai moves the cursor, brings the focus or
// ticks a box for one choose before it gives up.
const maxChooseTries = 3

// menus returns the menus on screen: the one read from the text (markers,
// numbers, radio buttons) first, then those marked by their shade alone.
func (e *Engine) menus(text []byte) []menu {
	var menus []menu
	if m := findMenu(string(text)); len(m.options) > 0 {
		menus = append(menus, m)
	}
	if e.screen != nil {
		menus = append(menus, e.screen.shadedMenus(text)...)
	}
	return menus
}

// choose picks the option named by the action on the menu on screen: if the marker
// is on it, Enter confirms; otherwise the arrow keys (up and down, or left and right
// for options side by side) move the marker there and clai checks, once the screen
// is still again, that it arrived. A menu without a marker gets the option's number,
// as it reads on screen; a row of buttons without one gets Tab, which brings the
// focus to it. In a checklist or radiolist, Space ticks the option's box; a
// radiolist is then confirmed with Enter, a checklist is not (several options may
// be ticked, each by a choose of its own). It reports whether anything was sent;
// a label that is not an option on screen hands over to a person.
func (e *Engine) choose(a *playbooks.Action, rule, step, matched string) bool {
	text := e.view.text()
	menus := e.menus(text)
	m, target := findOption(menus, a.Choose)
	if target < 0 {
		e.chooseFailed(a, text, menus, rule, step)
		return false
	}
	o, current := m.options[target], m.current()
	label := e.redact(o.label)
	switch {
	case current < 0 && o.number != "":
		e.choosing = nil
		number := typeText([]byte(o.number + "\r"))
		number.whole = true // a menu's key, not a line of text
		e.send(number, fmt.Sprintf("choose %q (types %s)", label, o.number), rule, step, matched)
		return true
	case current < 0 && m.buttons && !m.unclear:
		c := e.pending(a, rule, step)
		if c.tabs++; c.tabs > maxChooseTries {
			return e.chooseGaveUp(fmt.Sprintf("choose %q: Tab did not bring the focus to the buttons after %d tries", label, maxChooseTries), rule, step)
		}
		e.send(e.press("tab", 1), fmt.Sprintf("keys tab toward %q", label), rule, step, matched)
		return true
	case current < 0:
		return e.chooseGaveUp(fmt.Sprintf("choose %q: found it on screen, but no option is marked as the current one (no ❯ › ● > marker, reverse video or highlight) and none has a number; %s", label, e.redact(m.describe())), rule, step)
	case current == target && m.ticks != 0 && !o.ticked:
		c := e.pending(a, rule, step)
		if c.ticks++; c.ticks > maxChooseTries {
			return e.chooseGaveUp(fmt.Sprintf("choose %q: Space did not tick its box after %d tries", label, maxChooseTries), rule, step)
		}
		e.send(e.press("space", 1), fmt.Sprintf("keys space ticks %q", label), rule, step, matched)
		return true
	case current == target && m.ticks == '[':
		// Ticked in a checklist: other options may be ticked next.
		e.choosing = nil
		e.emit(Event{Name: EventMatch, Rule: rule, Step: step, Excerpt: matched, Reason: fmt.Sprintf("choose %q: ticked", label)})
		return false
	case current == target:
		e.choosing = nil
		e.send(e.press("enter", 1), fmt.Sprintf("choose %q", label), rule, step, matched)
		return true
	}
	c := e.pending(a, rule, step)
	if c.moves++; c.moves > maxChooseTries {
		return e.chooseGaveUp(fmt.Sprintf("choose %q: the cursor did not reach it after %d tries", label, maxChooseTries), rule, step)
	}
	key, n := m.moves(current, target)
	e.send(e.press(key, n), fmt.Sprintf("keys %s×%d toward %q", key, n, label), rule, step, matched)
	return true
}

// pending returns the choose under way for the action, starting it if it is new.
func (e *Engine) pending(a *playbooks.Action, rule, step string) *choosing {
	if c := e.choosing; c != nil && c.action == a {
		return c
	}
	e.choosing = &choosing{action: a, rule: rule, step: step}
	return e.choosing
}

// chooseGaveUp ends a choose that cannot go on and hands over to a person; it
// reports that nothing was sent.
func (e *Engine) chooseGaveUp(reason, rule, step string) bool {
	e.choosing = nil
	e.emit(Event{Name: EventError, Rule: rule, Step: step, Reason: reason})
	e.toManual(ask.Choose, reason)
	return false
}

// chooseFailed hands over to a person when no menu on screen has the option a
// choose names, saying what clai saw: the options of the menus it found, and
// whether the label is on screen all the same (in a menu whose current option
// it could not tell).
func (e *Engine) chooseFailed(a *playbooks.Action, text []byte, menus []menu, rule, step string) {
	var seen []string
	for _, m := range menus {
		seen = append(seen, m.describe())
	}
	reason := fmt.Sprintf("choose %s: no such option on screen", a.Choose)
	if line, ok := lineShowing(text, a.Choose); ok {
		reason = fmt.Sprintf("choose %s: found %q on screen, but not as an option of a menu: no line near it is marked as the current one (no ❯ › ● > marker, reverse video or highlight), and it has no number", a.Choose, strings.TrimSpace(unframe(line)))
	}
	if len(seen) > 0 {
		reason += " (" + strings.Join(seen, "; ") + ")"
	} else {
		reason += " (no menu found)"
	}
	e.chooseGaveUp(e.redact(reason), rule, step)
}

// lineShowing returns the first line of text that shows the label a choose
// names: a line with the text, or one the regex matches.
func lineShowing(text []byte, p *pattern.Pattern) (string, bool) {
	for _, l := range strings.Split(string(text), "\n") {
		if p.Kind == pattern.Regex && p.Regexp.MatchString(strings.TrimSpace(unframe(l))) || p.Kind != pattern.Regex && strings.Contains(l, p.Source) {
			return l, true
		}
	}
	return "", false
}

// continueChoosing confirms or retries a choose that sent keys, once the screen
// has changed. It reports whether the choose sent more or still waits; a choose
// that ended without sending (a box ticked in a checklist) lets the steps go on
// at once.
func (e *Engine) continueChoosing() bool {
	c := e.choosing
	if c == nil {
		return false
	}
	sent := e.choose(c.action, c.rule, c.step, "")
	return sent || e.choosing != nil
}

// liveMenus returns the menus of text that are dialogs which may take the
// next key: numbered options, one of them marked as the current one ("❯ 1.
// Yes", "● 1. Allow once"), as the agents draw their dialogs. Only those
// count: a list of tips then an input line ("1. Read the docs", "> run the
// tests"), or a prompt echoed in a transcript with the lines under it ("›
// run the script", "└ List sub"), read as a menu too, and are none.
func liveMenus(text []byte) []menu {
	var live []menu
	for _, m := range findMenus(string(text)) {
		marked, numbered := 0, 0
		for _, o := range m.options {
			if o.marked {
				marked++
			}
			if o.number != "" {
				numbered++
			}
		}
		if marked == 1 && numbered == len(m.options) {
			live = append(live, m)
		}
	}
	return live
}

// twoDialogs returns why no key may be pressed on the screen, when it shows
// more than one dialog that may take it (two menus, each with a current
// option: a folder-trust dialog and a command's approval drawn at once), or
// "". A key meant for one could land in the other. A dialog answered before
// and unchanged since (left drawn above the next one) takes no key.
func (e *Engine) twoDialogs(text []byte) string {
	if e.pb.Settings.Match != playbooks.MatchScreen {
		return ""
	}
	var live []menu
	for _, m := range liveMenus(text) {
		start, end := lineSpan(text, m.options[0].row, m.options[len(m.options)-1].row)
		if !e.stale(text, start, end) {
			live = append(live, m)
		}
	}
	if len(live) < 2 {
		return ""
	}
	seen := make([]string, len(live))
	for i, m := range live {
		seen[i] = m.describe()
	}
	return e.redact(fmt.Sprintf("%d dialogs on screen take keys (%s): a key meant for one could land in another, so none is pressed", len(live), strings.Join(seen, "; ")))
}

// lineSpan returns where in text its lines first to last (0-based) start and
// end.
func lineSpan(text []byte, first, last int) (start, end int) {
	line := 0
	start, end = -1, len(text)
	for i := 0; i <= len(text); i++ {
		if line == first && start < 0 {
			start = i
		}
		if i == len(text) {
			break
		}
		if text[i] == '\n' {
			if line == last {
				return max(start, 0), i
			}
			line++
		}
	}
	return max(start, 0), end
}

// twoDialogsHandOver hands the run over to a person, before anything of a
// rule's, a step's or a refusal's answer is typed or its match used up, when
// the screen shows two dialogs that take keys (see twoDialogs); it reports
// whether it did.
func (e *Engine) twoDialogsHandOver(rule, step, matched string) bool {
	why := e.twoDialogs(e.view.text())
	if why == "" {
		return false
	}
	e.choosing = nil
	e.emit(Event{Name: EventError, Rule: rule, Step: step, Excerpt: matched, Reason: why})
	e.toManual(ask.Choose, why)
	return true
}
