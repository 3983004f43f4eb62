// Command tui draws a dialog the way full-screen terminal programs do (Claude
// Code and other Ink or bubbletea programs, scaffolders such as create-vite):
// the terminal in raw mode, every word placed with absolute cursor moves so
// that no space is ever written between words, and only the cells that change
// redrawn (moving the ❯ marker leaves the labels alone).
//
//	tui [-title T] [-question Q] [-menu claude|list|numbers] [-options "Yes|No"]
//	    [-select N] [-app-cursor] [-query] [-busy N] [-frame D] [-ask N]
//	    [-linger N] [-swallow N]
//
// A run asks the question -ask times. Before each, a busy line
// ("✻ Working… (esc to interrupt)") is redrawn for -busy frames; then the
// question and its options appear; a busy frame lasts -frame (150ms). The
// menu is one of:
//
//   - claude: numbered options with the ❯ marker on the current one
//     ("❯ 1. Yes"); the arrow keys move it and Enter confirms;
//   - list: options without numbers, the › marker on the current one, as
//     inquirer-style scaffolders draw them; arrows and Enter;
//   - numbers: numbered options ("1) Vanilla") without a marker, answered by
//     typing the number and Enter.
//
// The arrow keys must come as the terminal mode says: with -app-cursor the
// program turns on application cursor keys (DECCKM, ESC[?1h) and accepts only
// ESC O A / ESC O B; without it only ESC [ A / ESC [ B. -swallow N ignores the
// first N arrow keys, as a program still busy drawing drops keys. After an
// answer the dialog stays up for -linger frames while the busy line keeps
// redrawing. -query first asks the terminal where the cursor is (DSR, ESC[6n)
// and what it is (DA, ESC[c) and waits, however long it takes, for both
// answers, reporting them as "terminal: cursor at ROW;COL, attributes ATTRS".
//
// Each answer is shown as "chose: LABEL". The program is strict, so that a test
// sees any mistake of the driver: a key it does not expect (any input while no
// question is asked, a wrong arrow encoding, a number not on the menu) ends it
// with exit code 2 and the message "unexpected input …". It exits 0 after the
// last answer, 3 if input ends early and 1 if stdin is not a terminal.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"
)

// Rows of the layout, 1-based as in cursor positioning.
const (
	rowTitle    = 1
	rowStatus   = 3
	rowQuestion = 5
	rowOptions  = 7
	rowLog      = 16
)

var spinner = []string{"·", "✢", "✳", "✶", "✻", "✽"}

// config holds the command line.
type config struct {
	title     string
	question  string
	options   []string
	menu      string
	sel       int
	appCursor bool
	query     bool
	busy      int
	frame     time.Duration
	ask       int
	linger    int
	swallow   int
}

// ui is the program's terminal: raw input as keys, output in frames.
type ui struct {
	cfg     config
	out     *bufio.Writer
	keys    <-chan []key
	restore func()
	logRow  int
	frames  int
}

func main() {
	var cfg config
	var options string
	flag.StringVar(&cfg.title, "title", "Welcome to Claude", "the title on the first row")
	flag.StringVar(&cfg.question, "question", "Do you want to proceed?", "the question")
	flag.StringVar(&options, "options", "Yes|Yes, and don't ask again|No, and tell Claude what to do differently", "the options, separated by |")
	flag.StringVar(&cfg.menu, "menu", "claude", "how the menu is drawn and answered: claude, list or numbers")
	flag.IntVar(&cfg.sel, "select", 1, "the option (1-based) the marker starts on")
	flag.BoolVar(&cfg.appCursor, "app-cursor", false, "turn on application cursor keys (ESC[?1h)")
	flag.BoolVar(&cfg.query, "query", false, "ask the terminal for the cursor position and device attributes first")
	flag.IntVar(&cfg.busy, "busy", 0, "busy frames before each question")
	flag.DurationVar(&cfg.frame, "frame", 150*time.Millisecond, "time between two busy frames")
	flag.IntVar(&cfg.ask, "ask", 1, "how many times the question is asked")
	flag.IntVar(&cfg.linger, "linger", 0, "busy frames the dialog stays up after each answer")
	flag.IntVar(&cfg.swallow, "swallow", 0, "arrow keys ignored at first")
	flag.Parse()
	cfg.options = strings.Split(options, "|")
	switch {
	case cfg.menu != "claude" && cfg.menu != "list" && cfg.menu != "numbers":
		fmt.Fprintf(os.Stderr, "tui: -menu %q: want claude, list or numbers\n", cfg.menu)
		os.Exit(1)
	case cfg.sel < 1 || cfg.sel > len(cfg.options):
		fmt.Fprintf(os.Stderr, "tui: -select %d: there are %d options\n", cfg.sel, len(cfg.options))
		os.Exit(1)
	}

	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		fmt.Fprintln(os.Stderr, "tui: stdin is not a terminal")
		os.Exit(1)
	}
	state, err := term.MakeRaw(fd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tui: raw mode: %v\n", err)
		os.Exit(1)
	}
	u := &ui{cfg: cfg, out: bufio.NewWriter(os.Stdout), logRow: rowLog}
	u.restore = func() { _ = term.Restore(fd, state) }
	u.run()
}

func (u *ui) run() {
	u.printf("\x1b[?25l\x1b[2J")
	if u.cfg.query {
		u.queryTerminal()
	}
	if u.cfg.appCursor {
		u.printf("\x1b[?1h")
	}
	u.words(rowTitle, 1, u.cfg.title)
	u.flush()
	u.keys = readKeys()
	for range u.cfg.ask {
		u.busyFor(u.cfg.busy)
		label := u.dialog()
		u.busyFor(u.cfg.linger)
		// The dialog goes; the busy line too.
		u.printf("\x1b[%d;1H\x1b[2K\x1b[%d;1H\x1b[J", rowStatus, rowQuestion)
		u.log("chose: " + label)
	}
	u.quit(0, "")
}

// queryTerminal asks the terminal where the cursor is and what it is, and
// blocks until both answers arrive.
func (u *ui) queryTerminal() {
	u.printf("\x1b[5;10H\x1b[6n")
	u.flush()
	pos, err := readReply('R')
	if err != nil {
		u.quit(3, "reading the cursor position: "+err.Error())
	}
	u.printf("\x1b[c")
	u.flush()
	attrs, err := readReply('c')
	if err != nil {
		u.quit(3, "reading the device attributes: "+err.Error())
	}
	u.log(fmt.Sprintf("terminal: cursor at %s, attributes %s", strings.TrimSuffix(strings.TrimPrefix(pos, "\x1b["), "R"), strings.TrimPrefix(attrs, "\x1b[")))
}

// readReply reads one terminal report, ESC [ … final, a byte at a time so
// nothing after it is read.
func readReply(final byte) (string, error) {
	var reply []byte
	b := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(b); err != nil {
			return "", err
		}
		switch {
		case len(reply) == 0 && b[0] != 0x1b:
			return "", fmt.Errorf("unexpected input %q", b)
		case len(reply) == 1 && b[0] != '[':
			return "", fmt.Errorf("unexpected input %q", append(reply, b[0]))
		}
		reply = append(reply, b[0])
		if len(reply) > 2 && b[0] == final {
			return string(reply), nil
		}
		if len(reply) > 32 {
			return "", fmt.Errorf("unexpected input %q", reply)
		}
	}
}

// busyFor redraws the busy line for n frames; no input is expected meanwhile.
func (u *ui) busyFor(n int) {
	if n == 0 {
		return
	}
	tick := time.NewTicker(u.cfg.frame)
	defer tick.Stop()
	for i := range n {
		if i == 0 {
			u.printf("\x1b[%d;1H\x1b[2K", rowStatus)
			u.words(rowStatus, 3, "Working… (esc to interrupt)")
		}
		// Only the spinner and the frame count change.
		u.frames++
		u.printf("\x1b[%d;1H%s\x1b[%d;33H%d", rowStatus, spinner[u.frames%len(spinner)], rowStatus, u.frames)
		u.flush()
		select {
		case <-tick.C:
		case k, ok := <-u.keys:
			if !ok {
				u.quit(3, "input ended")
			}
			u.quit(2, fmt.Sprintf("unexpected input %q while busy", k[0].seq))
		}
	}
}

// dialog asks the question and returns the label of the chosen option.
func (u *ui) dialog() string {
	u.printf("\x1b[%d;1H\x1b[2K", rowStatus)
	u.words(rowQuestion, 2, u.cfg.question)
	sel := u.cfg.sel - 1
	for i, o := range u.cfg.options {
		row := rowOptions + i
		switch u.cfg.menu {
		case "claude":
			// " ❯ 1. Yes": marker in column 2, number in 4, label in 7.
			u.printf("\x1b[%d;4H%d.", row, i+1)
			u.words(row, 7, o)
		case "list":
			// "› Vanilla": marker in column 1, label in 3.
			u.words(row, 3, o)
		case "numbers":
			// "  1) Vanilla": number in column 3, label in 6.
			u.printf("\x1b[%d;3H%d)", row, i+1)
			u.words(row, 6, o)
		}
	}
	if u.cfg.menu == "numbers" {
		return u.typedNumber()
	}
	u.marker(sel, true)
	u.flush()
	swallow := u.cfg.swallow
	for {
		ks := u.nextKeys()
		for i, k := range ks {
			switch {
			case k.name == "enter" && i == len(ks)-1:
				return u.cfg.options[sel]
			case (k.name == "up" || k.name == "down") && k.app == u.cfg.appCursor:
				if swallow > 0 {
					swallow--
					continue
				}
				next := sel + 1
				if k.name == "up" {
					next = sel - 1
				}
				if next < 0 || next >= len(u.cfg.options) {
					continue
				}
				u.marker(sel, false)
				u.marker(next, true)
				sel = next
			default:
				u.quit(2, fmt.Sprintf("unexpected input %q at the menu (application cursor keys %v)", k.seq, u.cfg.appCursor))
			}
		}
		u.flush()
	}
}

// nextKeys waits for the next keys typed; the end of input ends the program.
func (u *ui) nextKeys() []key {
	ks, ok := <-u.keys
	if !ok {
		u.quit(3, "input ended")
	}
	return ks
}

// marker draws or erases the marker of option i, and nothing else.
func (u *ui) marker(i int, on bool) {
	glyph, col := "❯", 2
	if u.cfg.menu == "list" {
		glyph, col = "›", 1
	}
	if !on {
		glyph = " "
	}
	u.printf("\x1b[%d;%dH%s", rowOptions+i, col, glyph)
}

// typedNumber reads a number up to Enter at the prompt under the options,
// echoing it, and returns the label of that option.
func (u *ui) typedNumber() string {
	row := rowOptions + len(u.cfg.options) + 1
	u.words(row, 1, "Your choice:")
	u.flush()
	var typed []byte
	for {
		ks := u.nextKeys()
		for i, k := range ks {
			switch {
			case k.name == "digit":
				typed = append(typed, k.seq...)
				u.printf("\x1b[%d;14H%s", row, typed)
			case k.name == "enter" && i == len(ks)-1:
				n, err := strconv.Atoi(string(typed))
				if err != nil || n < 1 || n > len(u.cfg.options) {
					u.quit(2, fmt.Sprintf("unexpected input %q: not an option's number", typed))
				}
				return u.cfg.options[n-1]
			default:
				u.quit(2, fmt.Sprintf("unexpected input %q at the number prompt", k.seq))
			}
		}
		u.flush()
	}
}

// words draws s from row, col with each word placed by a cursor move (CHA,
// ESC[nG) instead of the spaces before it, as Ink does.
func (u *ui) words(row, col int, s string) {
	u.printf("\x1b[%d;%dH", row, col)
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			u.printf("\x1b[%dG", col)
		}
		u.printf("%s", w)
		col += len([]rune(w)) + 1
	}
}

// log adds a line to the log under the dialog.
func (u *ui) log(line string) {
	u.printf("\x1b[%d;1H%s", u.logRow, line)
	u.logRow++
	u.flush()
}

func (u *ui) printf(format string, args ...any) {
	fmt.Fprintf(u.out, format, args...)
}

func (u *ui) flush() {
	_ = u.out.Flush()
}

// quit restores the terminal and exits with code, after msg if there is one.
func (u *ui) quit(code int, msg string) {
	if u.cfg.appCursor {
		u.printf("\x1b[?1l")
	}
	if msg != "" {
		u.log("tui: " + msg)
	}
	u.printf("\x1b[%d;1H\x1b[?25h", u.logRow)
	u.flush()
	u.restore()
	os.Exit(code)
}

// key is one keystroke: its name (up, down, enter, digit, other), whether an
// arrow came in application mode (ESC O x), and its bytes.
type key struct {
	name string
	app  bool
	seq  string
}

// readKeys reads the terminal in raw mode and sends the keys of each read; the
// channel is closed at the end of input.
func readKeys() <-chan []key {
	ch := make(chan []key)
	go func() {
		defer close(ch)
		buf := make([]byte, 256)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				ch <- parseKeys(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// parseKeys splits one read into keys; an escape sequence arrives whole, as a
// terminal writes it.
func parseKeys(b []byte) []key {
	var ks []key
	for len(b) > 0 {
		switch {
		case len(b) >= 3 && b[0] == 0x1b && (b[1] == '[' || b[1] == 'O'):
			k := key{name: "other", app: b[1] == 'O', seq: string(b[:3])}
			switch b[2] {
			case 'A':
				k.name = "up"
			case 'B':
				k.name = "down"
			}
			ks = append(ks, k)
			b = b[3:]
		case b[0] == '\r' || b[0] == '\n':
			ks = append(ks, key{name: "enter", seq: string(b[:1])})
			b = b[1:]
		case b[0] >= '0' && b[0] <= '9':
			ks = append(ks, key{name: "digit", seq: string(b[:1])})
			b = b[1:]
		default:
			ks = append(ks, key{name: "other", seq: string(b[:1])})
			b = b[1:]
		}
	}
	return ks
}
