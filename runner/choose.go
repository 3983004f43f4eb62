package runner

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/playbooks"
)

// A menu on screen: numbered options ("1. Yes", "2) No"), the current one marked
// with ❯, ›, ● or >, or options of a marker list indented alike; radio buttons
// (● or ◉ selected, ○ or ◯ not), one a line or side by side ("● Yes / ○ No"). A
// gutter drawn in front of the options (@clack/prompts draws "│  ● React") is not
// part of the line, nor are the sides of a box around them (Gemini CLI's dialogs:
// "│ ● 1. Allow once   │").
var (
	numberedOption = regexp.MustCompile(`^\s*([❯›●>]\s*)?(\d{1,2})[.)]\s+(\S.*?)\s*$`)
	markedOption   = regexp.MustCompile(`^\s*([❯›●◉>])\s+(\S.*?)\s*$`)
	radioOption    = regexp.MustCompile(`^\s*[○◯]\s+(\S.*?)\s*$`)
	sideBySide     = regexp.MustCompile(`([●◉○◯])\s+([^●◉○◯]*[^●◉○◯\s/])`)
	gutter         = regexp.MustCompile(`^\s*[│┃]`)
)

// option is one entry of a menu found on screen.
type option struct {
	label  string
	number string
	marked bool
	// radio: the entry is a radio button, selected or not.
	radio bool
}

// menu is the options of a menu found on screen, top to bottom or left to right.
type menu struct {
	options []option
	// horizontal: the options stand side by side on one line, so the left and
	// right arrow keys move between them.
	horizontal bool
}

// findMenu returns the last menu on the screen: the last run of consecutive option
// lines, or a line of radio buttons side by side if that comes later.
func findMenu(text string) menu {
	var found menu
	var run []option
	flush := func() {
		if len(run) >= 2 {
			found = menu{options: run}
		}
		run = nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = gutter.ReplaceAllString(unframe(l), "")
	}
	for i, l := range lines {
		if opts := sideBySideOptions(l); opts != nil {
			flush()
			found = menu{options: opts, horizontal: true}
			continue
		}
		if m := numberedOption.FindStringSubmatch(l); m != nil {
			run = append(run, option{label: m[3], number: m[2], marked: m[1] != ""})
			continue
		}
		if m := radioOption.FindStringSubmatch(l); m != nil {
			run = append(run, option{label: m[1], radio: true})
			continue
		}
		if m := markedOption.FindStringSubmatchIndex(l); m != nil {
			radio := strings.ContainsAny(l[m[2]:m[3]], "●◉")
			if len(run) == 0 && !radio {
				// The marker need not be on the first option.
				run = optionsAbove(lines[:i], utf8.RuneCountInString(l[:m[4]]))
			}
			run = append(run, option{label: l[m[4]:m[5]], marked: true, radio: radio})
			continue
		}
		// An unmarked entry of a marker list: indented like the marked one. Radio
		// buttons mark every entry, so a line without one ends their list.
		if len(run) > 0 && run[0].number == "" && !run[0].radio && strings.HasPrefix(l, "  ") && strings.TrimSpace(l) != "" {
			run = append(run, option{label: strings.TrimSpace(l)})
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
	for {
		t := strings.Trim(l, " ")
		inner, ok := strings.CutPrefix(t, "│")
		if !ok {
			return l
		}
		inner, ok = strings.CutSuffix(inner, "│")
		if !ok {
			return l
		}
		// The side is followed by a space of padding, when there is one.
		l = strings.TrimPrefix(inner, " ")
	}
}

// sideBySideOptions returns the radio buttons of a line that holds two or more of
// them ("● Yes / ○ No"), or nil.
func sideBySideOptions(line string) []option {
	if strings.IndexAny(strings.TrimSpace(line), "●◉○◯") != 0 {
		return nil
	}
	ms := sideBySide.FindAllStringSubmatch(line, -1)
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
		if label == "" || len(l)-len(label) != col || numberedOption.MatchString(l) {
			break
		}
		start--
	}
	var above []option
	for _, l := range lines[start:] {
		above = append(above, option{label: strings.TrimSpace(l)})
	}
	return above
}

// labelMatches reports whether an option's label is the one a choose action names:
// the label starts with the text, or the regex matches it.
func labelMatches(p *playbooks.Pattern, label string) bool {
	if p.Kind == playbooks.Regex {
		return p.Regexp.MatchString(label)
	}
	return strings.HasPrefix(label, p.Source)
}

// choosing is a choose action under way: the cursor was moved and clai waits for
// the screen to show the selection before it confirms.
type choosing struct {
	action *playbooks.Action
	rule   string
	step   string
	tries  int
}

// maxChooseTries bounds how often clai moves the cursor before it gives up.
const maxChooseTries = 3

// choose picks the option named by the action on the menu on screen: if the marker
// is on it, Enter confirms; otherwise the arrow keys (up and down, or left and right
// for options side by side) move the marker there and clai checks, once the screen
// is still again, that it arrived. A menu without a marker gets the option's number,
// as it reads on screen. It reports whether anything was sent; a label that is not
// on screen hands over to a person.
func (e *Engine) choose(a *playbooks.Action, rule, step, matched string) bool {
	m := findMenu(string(e.view()))
	menu := m.options
	target, current := -1, -1
	var labels []string
	for i, o := range menu {
		labels = append(labels, o.label)
		if target < 0 && labelMatches(a.Choose, o.label) {
			target = i
		}
		if o.marked {
			current = i
		}
	}
	switch {
	case target < 0:
		e.choosing = nil
		reason := fmt.Sprintf("choose %s: no such option on screen", a.Choose)
		if len(labels) > 0 {
			reason += " (options: " + e.redact(strings.Join(labels, " | ")) + ")"
		} else {
			reason += " (no menu found)"
		}
		e.emit(Event{Name: "error", Rule: rule, Step: step, Reason: reason})
		e.toManual(reason)
		return false
	case current < 0 && menu[target].number != "":
		e.choosing = nil
		e.send(Send{Data: []byte(menu[target].number + "\r")}, fmt.Sprintf("choose %q (types %s)", e.redact(menu[target].label), menu[target].number), rule, step, matched)
		return true
	case current < 0:
		e.choosing = nil
		reason := fmt.Sprintf("choose %s: the menu shows no cursor and no numbers", a.Choose)
		e.emit(Event{Name: "error", Rule: rule, Step: step, Reason: reason})
		e.toManual(reason)
		return false
	case current == target:
		e.choosing = nil
		e.send(Send{Data: playbooks.Key("enter").Bytes(false)}, fmt.Sprintf("choose %q", e.redact(menu[target].label)), rule, step, matched)
		return true
	}
	c := e.choosing
	if c == nil || c.action != a {
		c = &choosing{action: a, rule: rule, step: step}
		e.choosing = c
	}
	c.tries++
	if c.tries > maxChooseTries {
		e.choosing = nil
		reason := fmt.Sprintf("choose %q: the cursor did not reach it after %d tries", e.redact(menu[target].label), maxChooseTries)
		e.emit(Event{Name: "error", Rule: rule, Step: step, Reason: reason})
		e.toManual(reason)
		return false
	}
	forward, back := playbooks.Key("down"), playbooks.Key("up")
	if m.horizontal {
		forward, back = "right", "left"
	}
	key, n := forward, target-current
	if n < 0 {
		key, n = back, -n
	}
	var data []byte
	for range n {
		data = append(data, key.Bytes(e.scr.AppCursor())...)
	}
	e.send(Send{Data: data}, fmt.Sprintf("keys %s×%d toward %q", key, n, e.redact(menu[target].label)), rule, step, matched)
	return true
}

// continueChoosing confirms or retries a choose that moved the cursor, once the
// screen has changed; it reports whether it acted.
func (e *Engine) continueChoosing() bool {
	c := e.choosing
	if c == nil {
		return false
	}
	e.choose(c.action, c.rule, c.step, "")
	return true
}
