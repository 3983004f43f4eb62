// Package screen renders a program's terminal output into a virtual screen so
// that patterns can be matched against what a person would see, not against
// the raw byte stream (settings.match: screen, see docs/playbook.md).
//
// TUIs built with Ink or bubbletea draw spaces as cursor jumps, rewrite only
// the cells that changed and move a selection marker without rewriting the
// label next to it; only a terminal emulator recovers the text from that. The
// emulator is github.com/charmbracelet/x/vt (chosen by measurement, see
// DECISION.md in this folder).
//
// A Screen also answers the queries a program sends to its terminal (cursor
// position, device attributes, mode reports, default colours) so that a
// program which waits for an answer does not hang: the caller writes
// Replies back to the program's input.
package screen

import (
	"bytes"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Default size used by New when it is given a non-positive dimension.
const (
	DefaultRows = 24
	DefaultCols = 80
)

// Answers sent for device-attribute queries. DA1 is what tmux answered to
// the programs in the recorded sessions (VT100 with advanced video option),
// so the programs behave as they did when recorded; DA2 claims a VT220,
// firmware 10, no xterm version, so no program enables xterm-only features.
const (
	primaryDA   = "\x1b[?1;2c"
	secondaryDA = "\x1b[>1;10;0c"
)

// Screen is a virtual terminal: feed it a program's output with Write and
// read the visible text with Text. A Screen is not safe for concurrent use;
// use it from one goroutine (or guard it with a lock).
type Screen struct {
	emu *vt.Emulator

	text    string   // visible text as of the last Write or Resize
	atCur   string   // text with the blanks before a visible cursor kept
	shades  shadeSum // the cells' shades as of the last Write or Resize
	version uint64   // bumped whenever text, atCur or shades change

	replies []byte // answers to queries, drained by Replies

	// modes holds the DEC and ANSI modes the emulator honours and whether
	// each is set; any other mode is "not recognised" and never reaches
	// the emulator.
	modes map[ansi.Mode]bool

	buf []byte // scratch for rendering

	strs stringFilter // keeps UTF-8 inside control strings from ending them

	// held is plain output held back from the emulator (see plain.go).
	held held
	// parse follows the emulator's parser; run, sum and pen are scratch for
	// leaving out what scrolls off unseen, skipped counts the bytes left out.
	parse    parseState
	run      plainRun
	sum, pen []byte
	skipped  int
	// margins is set, for the main and the alternate screen, when its scroll
	// region is smaller than the screen: by its top and bottom margins
	// (vmargins) or its left and right ones (hmargins).
	margins, vmargins, hmargins [2]bool
	// maxPending and minSkip are the constants of the same names, and exact
	// turns holding back and skipping off; tests change them.
	maxPending, minSkip int
	exact               bool
	// redrawn is set when output other than plain output was written since
	// the last MarkPlain (see Plain).
	redrawn bool
	// frames remembers the rows frames showed (see MarkFrames).
	frames frames
}

// New returns a blank screen of rows×cols cells. A non-positive dimension is
// replaced by DefaultRows or DefaultCols.
func New(rows, cols int) *Screen {
	rows, cols = size(rows, cols)
	s := &Screen{
		emu:        vt.NewEmulator(cols, rows),
		maxPending: maxPending,
		minSkip:    minSkip,
		modes: map[ansi.Mode]bool{
			// The modes vt.Emulator initialises, with their defaults.
			ansi.ModeLineFeedNewLine:     false, // 20
			ansi.ModeCursorKeys:          false, // ?1
			ansi.ModeOrigin:              false, // ?6
			ansi.ModeAutoWrap:            true,  // ?7
			ansi.ModeMouseX10:            false, // ?9
			ansi.ModeTextCursorEnable:    true,  // ?25
			ansi.ModeNumericKeypad:       false, // ?66
			ansi.ModeLeftRightMargin:     false, // ?69
			ansi.ModeMouseNormal:         false, // ?1000
			ansi.ModeMouseHighlight:      false, // ?1001
			ansi.ModeMouseButtonEvent:    false, // ?1002
			ansi.ModeMouseAnyEvent:       false, // ?1003
			ansi.ModeFocusEvent:          false, // ?1004
			ansi.ModeMouseExtSgr:         false, // ?1006
			ansi.ModeAltScreen:           false, // ?1047
			ansi.ModeSaveCursor:          false, // ?1048
			ansi.ModeAltScreenSaveCursor: false, // ?1049
			ansi.ModeBracketedPaste:      false, // ?2004
		},
	}
	// Only the visible screen is matched: keep the main screen's scrollback
	// to its minimum (the library's default is 10,000 lines).
	s.emu.SetScrollbackSize(1)
	s.emu.SetCallbacks(vt.Callbacks{
		EnableMode:  func(m ansi.Mode) { s.setMode(m, true) },
		DisableMode: func(m ansi.Mode) { s.setMode(m, false) },
	})
	// Registered first, the watch on the margins runs after the handlers
	// registered below, which keep the margins on the screen.
	s.watchMargins()
	s.registerHandlers()
	s.text, s.atCur, s.shades = s.render()
	return s
}

func size(rows, cols int) (int, int) {
	if rows <= 0 {
		rows = DefaultRows
	}
	if cols <= 0 {
		cols = DefaultCols
	}
	return rows, cols
}

// Write feeds output of the program to the screen: text, control characters
// and escape sequences, split anywhere (a sequence or a UTF-8 character may
// straddle two calls). Queries found in p are answered into Replies. The
// visible text is compared after a call, not after each byte; plain output
// (lines of text and colours, see plain.go) is held back and taken in when the
// screen is next looked at.
func (s *Screen) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	s.earnFrames(len(p))
	held := &s.held
	old := len(held.tail)
	held.tail = s.strs.filter(held.tail, p)
	// Output is held back from the parser's ground state on, and only as long
	// as it is plain.
	if !s.exact && s.parse.ground() {
		n, end := plainPrefix(held.tail[old:], held.end)
		if old+n == len(held.tail) {
			held.end = end
			s.compact()
			if len(held.tail) >= s.maxPending {
				s.takeInWhole()
			}
			return
		}
	}
	s.redrawn = true
	// The emulator takes what was held back in a write of its own, as it did
	// when it came: a character at the end of one write and a combining mark
	// at the start of the next stay two clusters.
	s.takeIn(old)
	s.feedExact(held.tail[old:])
	held.reset()
	s.refresh()
}

// sync takes in the output held back, if any: the screen then shows all that
// was written.
func (s *Screen) sync() {
	if !s.Pending() {
		return
	}
	s.takeIn(len(s.held.tail))
	s.held.reset()
	s.refresh()
}

// takeInWhole takes in the output held back up to an SGR sequence that the
// last write cut short, which stays held back: the parser is then in its ground
// state, and the output after it can be held back too. A sequence cut short
// that is all there is goes in too, so that what is held back stays bounded.
func (s *Screen) takeInWhole() {
	held := &s.held
	whole := len(held.tail)
	if i := bytes.LastIndexByte(held.tail, ansi.ESC); held.end != tailNone && i > 0 {
		whole = i
	}
	s.takeIn(whole)
	end := held.end
	rest := held.tail[:copy(held.tail, held.tail[whole:])]
	held.reset()
	held.tail, held.end = rest, end
	s.refresh()
}

// feedExact writes b to the emulator, by feed unless skipping is off.
func (s *Screen) feedExact(b []byte) {
	if s.exact {
		s.emuWrite(b)
		return
	}
	s.feed(b)
}

// Plain reports whether all that was written since the last MarkPlain (or
// since the screen was made) was plain output: printable text, colours,
// carriage returns and line feeds, which add to the screen as they add to a
// stream. Anything else (a cursor motion, an erase, a mode, another screen, a
// resize) redraws it, and a program may take several writes to do that.
func (s *Screen) Plain() bool {
	return !s.redrawn
}

// MarkPlain starts Plain afresh: a caller marks the screen when it looks at it.
func (s *Screen) MarkPlain() {
	s.redrawn = false
}

// Pending reports whether output was written that the screen has not taken in
// yet: the next look at it (Text, TextAtCursor, Version, Changed, Cursor) does,
// and Version may then change. A caller that waits for the screen to settle
// asks Pending first, so that it does not take the output in at every write.
func (s *Screen) Pending() bool {
	return s.held.any()
}

// stringFilter drops the bytes of non-ASCII characters inside control strings
// (OSC, DCS, SOS, PM, APC) before they reach the emulator, whose parser takes
// byte 0x9C, the 8-bit String Terminator, to end the string even when it is
// part of a UTF-8 character: the window title "✳ Claude Code" (✳ is
// E2 9C B3) then ended early and " Claude Code" was printed on the screen.
// A UTF-8 terminal (tmux, xterm) reads the whole title. Nothing clai reads
// from a control string (the OSC 10/11/12 colour queries) is non-ASCII.
type stringFilter struct {
	state uint8
	osc   bool // the string is an OSC, which BEL ends too
}

const (
	filterGround uint8 = iota
	filterEsc          // after ESC, outside a string
	filterString       // inside a control string
	filterStrEsc       // after ESC inside a control string: ST or a new sequence
)

// filter appends p to dst without the non-ASCII bytes of control strings,
// keeping its state across calls, so a string may straddle two writes.
func (f *stringFilter) filter(dst, p []byte) []byte {
	for i := 0; i < len(p); i++ {
		if f.state == filterGround {
			// Up to the next ESC, everything is kept.
			n := bytes.IndexByte(p[i:], 0x1b)
			if n < 0 {
				return append(dst, p[i:]...)
			}
			dst = append(dst, p[i:i+n]...)
			i += n
		}
		b := p[i]
		switch f.state {
		case filterGround:
			if b == 0x1b {
				f.state = filterEsc
			}
		case filterEsc, filterStrEsc:
			switch b {
			case ']', 'P', 'X', '^', '_':
				f.state, f.osc = filterString, b == ']'
			case 0x1b:
				f.state = filterEsc
			default:
				f.state = filterGround
			}
		case filterString:
			switch {
			case b == 0x1b:
				f.state = filterStrEsc
			case b == 0x07 && f.osc, b == 0x18, b == 0x1a:
				f.state = filterGround // BEL ends an OSC; CAN and SUB cancel any string
			case b >= 0x80:
				continue
			}
		}
		dst = append(dst, b)
	}
	return dst
}

// Text returns the visible screen: one line per row joined by "\n", trailing
// blanks trimmed on each row, trailing empty rows dropped, and U+00A0
// (no-break space, which Go's \s does not match) turned into a plain space.
// The second half of a double-width character takes no place in the text.
func (s *Screen) Text() string {
	s.sync()
	return s.text
}

// ANSI returns the visible screen with its colours and attributes, as escape
// sequences a terminal draws: one line per row, for a person who watches the
// screen from elsewhere.
func (s *Screen) ANSI() string {
	s.sync()
	return s.emu.Render()
}

// TextAtCursor returns Text with the blanks between the end of the cursor's
// row and the cursor kept, when the cursor is visible and the row holds text:
// a prompt drawn with a trailing space ("Password: ") and the cursor after it
// reads as it was drawn, so that a pattern ending in the space matches. It
// keeps no more than that: not a blank past the cursor, not a blank of
// another row, nothing for a hidden cursor (which marks no place to type).
func (s *Screen) TextAtCursor() string {
	s.sync()
	return s.atCur
}

// Resize changes the screen to rows×cols cells, as a terminal window resize
// does (the caller still has to tell the program, e.g. with pty.Setsize). A
// non-positive dimension is replaced by DefaultRows or DefaultCols.
func (s *Screen) Resize(rows, cols int) {
	rows, cols = size(rows, cols)
	s.sync()
	s.redrawn = true
	s.emu.Resize(cols, rows)
	// The emulator gives both screens a scroll region of the new size.
	s.vmargins, s.hmargins, s.margins = [2]bool{}, [2]bool{}, [2]bool{}
	s.refresh()
}

// Size returns the screen's size in rows and columns.
func (s *Screen) Size() (rows, cols int) {
	return s.emu.Height(), s.emu.Width()
}

// AppCursor reports whether application cursor key mode (DECCKM, set with
// ESC[?1h and reset with ESC[?1l) is on: the arrow keys must then be sent as
// ESC O A … ESC O D instead of ESC [ A … ESC [ D.
func (s *Screen) AppCursor() bool {
	// Plain output sets no mode: what is held back does not count.
	return s.modes[ansi.ModeCursorKeys]
}

// Cursor returns the cursor position, 0-based: row 0 is the top row and
// column 0 the leftmost column.
func (s *Screen) Cursor() (row, col int) {
	s.sync()
	return s.cursor()
}

// cursor returns the emulator's cursor position, 0-based, as Cursor does,
// without taking in the output held back.
func (s *Screen) cursor() (row, col int) {
	p := s.emu.CursorPosition()
	return p.Y, p.X
}

// Replies returns the answers a real terminal would have sent to the program
// for the queries written so far, in order, and forgets them: each answer is
// returned once. The caller writes them to the program's input. Answered:
// cursor position (ESC[6n, ESC[?6n), status (ESC[5n), primary and secondary
// device attributes (ESC[c, ESC[0c, ESC[>c), mode reports (DECRQM, ESC[?Ps$p
// and ESC[Ps$p; modes this screen does not implement, such as synchronized
// output 2026, are reported "not recognised" as xterm does) and default
// colour queries (OSC 10/11/12 with "?"). It returns nil when there is none.
func (s *Screen) Replies() []byte {
	// Plain output asks nothing: what is held back does not count.
	r := s.replies
	s.replies = nil
	return r
}

// Version returns a counter that is incremented each time what the screen
// shows changes: its visible text (as returned by Text or TextAtCursor), or
// the Shade of a cell (see ShadeAt), as when a menu's reverse-video bar moves
// to another option. A change of colour of the text alone does not count. It
// starts at 0 for a new screen.
func (s *Screen) Version() uint64 {
	s.sync()
	return s.version
}

// Changed reports whether what the screen shows has changed since Version
// returned since: a caller records Version when it sends something and asks
// Changed later to learn whether the program reacted on screen.
func (s *Screen) Changed(since uint64) bool {
	return s.Version() != since
}

// refresh re-renders the visible text and the cells' shades and bumps the
// version if they changed.
func (s *Screen) refresh() {
	t, a, sh := s.render()
	if t != s.text || a != s.atCur || sh != s.shades {
		s.text, s.atCur, s.shades = t, a, sh
		s.version++
	}
}
