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
	"strconv"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	"github.com/charmbracelet/x/vt"

	"github.com/clai-sh/clai/internal/glyph"
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

// render builds the normalised visible text from the emulator's cells, the
// same with the blanks before the cursor kept (see TextAtCursor), and the sum
// of the cells' shades.
func (s *Screen) render() (text, atCursor string, shades shadeSum) {
	b := s.buf[:0]
	rows, cols := s.emu.Height(), s.emu.Width()
	keep := 0 // length of b up to the last non-empty row
	cy, cx := s.cursor()
	if !s.modes[ansi.ModeTextCursorEnable] {
		cy = -1
	}
	padAt, pad := 0, 0 // where in the text blanks go before the cursor, and how many
	for y := 0; y < rows; y++ {
		if y > 0 {
			b = append(b, '\n')
		}
		start := len(b)
		end := start // length of b up to the last non-blank cell of this row
		cursor := -1 // length of b before the cursor's cell, on its row
		for x := 0; x < cols; x++ {
			if y == cy && x == cx {
				cursor = len(b)
			}
			c := s.emu.CellAt(x, y)
			b, end = appendCell(b, c, end)
			if c != nil && (c.Style.Bg != nil || c.Style.Attrs&uv.AttrReverse != 0) {
				shades = shades.add(y, x, c) // the rest shows the default background
			}
		}
		if end > start && cursor > end {
			// Only blanks lie between the row's end and the cursor.
			padAt, pad = end, cursor-end
		}
		b = b[:end]
		if end > start {
			keep = end
		}
	}
	s.buf = b
	text = string(b[:keep])
	if pad == 0 {
		return text, text, shades
	}
	return text, text[:padAt] + strings.Repeat(" ", pad) + text[padAt:], shades
}

// appendCell appends the text of cell c as Text shows it. It returns b and the
// length of b up to its last character that is not blank, from end.
func appendCell(b []byte, c *uv.Cell, end int) ([]byte, int) {
	switch {
	case c == nil:
		b = append(b, ' ')
	case c.Style.Attrs&uv.AttrConceal != 0 && c.Content != "":
		// Concealed text shows as a blank (a wide character's second half
		// takes no place, as below).
		b = append(b, ' ')
	case len(c.Content) == 1: // ASCII, the common case
		b = append(b, c.Content[0])
		if c.Content[0] != ' ' {
			end = len(b)
		}
	case c.Content == "":
		if c.Width != 0 {
			b = append(b, ' ')
		}
		// else: second half of a wide character, takes no place
	case glyph.Plain(c.Content):
		b = append(b, c.Content...)
		end = len(b)
	default:
		b, end = appendShown(b, c.Content, end)
	}
	return b, end
}

// appendShown appends a cell's text as a person sees it: a character that shows
// as a blank (a no-break space, an em space …) as a space, one that shows as
// nothing (a zero-width space, a directional mark …) left out. It returns b and
// the length of b up to its last character that is not blank, from end.
func appendShown(b []byte, content string, end int) ([]byte, int) {
	for _, r := range content {
		switch {
		case glyph.Blank(r):
			b = append(b, ' ')
		case glyph.Invisible(r):
		default:
			b = utf8.AppendRune(b, r)
			end = len(b)
		}
	}
	return b, end
}

// setMode records a mode change reported by the emulator.
func (s *Screen) setMode(m ansi.Mode, on bool) {
	if _, ok := s.modes[m]; ok {
		s.modes[m] = on
	}
}

// reply queues an answer for Replies.
func (s *Screen) reply(str string) {
	s.replies = append(s.replies, str...)
}

// registerHandlers installs handlers for every sequence on which the
// emulator would otherwise write an answer to its internal io.Pipe, which
// blocks until someone reads it. Handlers registered last run first; a
// handler that returns true stops the chain.
func (s *Screen) registerHandlers() {
	e := s.emu

	// DA1: ESC[c, ESC[0c.
	e.RegisterCsiHandler('c', func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n == 0 {
			s.reply(primaryDA)
		}
		return true
	})
	// DA2: ESC[>c, ESC[>0c.
	e.RegisterCsiHandler(ansi.Command('>', 0, 'c'), func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n == 0 {
			s.reply(secondaryDA)
		}
		return true
	})
	// DSR: ESC[5n (status), ESC[6n (cursor position).
	e.RegisterCsiHandler('n', func(params ansi.Params) bool {
		switch n, _, _ := params.Param(0, 0); n {
		case 5:
			s.reply("\x1b[0n")
		case 6:
			row, col := s.cursor()
			s.reply("\x1b[" + strconv.Itoa(row+1) + ";" + strconv.Itoa(col+1) + "R")
		}
		return true
	})
	// DECXCPR: ESC[?6n, answered with page 1 as xterm does.
	e.RegisterCsiHandler(ansi.Command('?', 0, 'n'), func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n == 6 {
			row, col := s.cursor()
			s.reply("\x1b[?" + strconv.Itoa(row+1) + ";" + strconv.Itoa(col+1) + ";1R")
		}
		return true
	})
	// DECRQM: ESC[Ps$p (ANSI) and ESC[?Ps$p (DEC).
	e.RegisterCsiHandler(ansi.Command(0, '$', 'p'), func(params ansi.Params) bool {
		if n, _, ok := params.Param(0, -1); ok && n >= 0 {
			s.reply(s.reportMode(ansi.ANSIMode(n)))
		}
		return true
	})
	e.RegisterCsiHandler(ansi.Command('?', '$', 'p'), func(params ansi.Params) bool {
		if n, _, ok := params.Param(0, -1); ok && n >= 0 {
			s.reply(s.reportMode(ansi.DECMode(n)))
		}
		return true
	})
	// SM/RM: hide the modes this screen does not implement from the
	// emulator, so that DECRQM stays truthful and so that the ones on which
	// the emulator would answer (2048, in-band resize) or change behaviour
	// (2027, grapheme widths; tmux, where the sessions were recorded, has
	// neither) stay off. Returning false hands the rest to the emulator.
	// The end of a synchronized update (ESC[?2026l) ends a frame (see
	// frames).
	for _, c := range []struct {
		cmd     int
		dec, on bool
	}{
		{'h', false, true}, {'l', false, false},
		{ansi.Command('?', 0, 'h'), true, true}, {ansi.Command('?', 0, 'l'), true, false},
	} {
		e.RegisterCsiHandler(c.cmd, func(params ansi.Params) bool {
			for i, p := range params {
				n := p.Param(-1)
				if n < 0 {
					continue
				}
				var m ansi.Mode = ansi.ANSIMode(n)
				if c.dec {
					m = ansi.DECMode(n)
				}
				if isFrameEnd(m, c.on) {
					s.frameEnded(false)
				}
				if _, ok := s.modes[m]; !ok {
					params[i] = ansi.Param(parser.MissingParam)
				}
			}
			return false
		})
	}
	// DECSTBM and DECSLRM: a bottom or right margin past the screen's last
	// row or column ends there, as in xterm. The emulator would take it as it
	// is and index past its rows or columns on the next scroll or insert.
	e.RegisterCsiHandler('r', func(params ansi.Params) bool {
		clampParam(params, 1, e.Height())
		return false
	})
	e.RegisterCsiHandler('s', func(params ansi.Params) bool {
		if s.modes[ansi.ModeLeftRightMargin] { // else SCOSC, save the cursor
			clampParam(params, 1, e.Width())
		}
		return false
	})
	// Counts: the emulator works once per count, and a count may be up to
	// 2^31, so a few bytes of output could keep it busy for minutes. Erasing
	// characters (ECH) or moving over tab stops (CHT, CBT) more times than a
	// row has cells ends where a row's worth ends; a repeat (REP) is held to a
	// screenful, as tmux holds it.
	for _, c := range []struct {
		cmd  int
		most func() int
	}{
		{'X', e.Width}, {'I', e.Width}, {'Z', e.Width},
		{'b', func() int { return e.Width() * e.Height() }},
	} {
		e.RegisterCsiHandler(c.cmd, func(params ansi.Params) bool {
			if n, more, ok := params.Param(0, 1); ok && n > c.most() {
				params[0] = ansi.Param(ansi.Parameter(c.most(), more))
			}
			return false
		})
	}
	// OSC 10/11/12 "?": default foreground, background and cursor colour.
	for _, cmd := range []int{10, 11, 12} {
		e.RegisterOscHandler(cmd, func(data []byte) bool {
			_, arg, _ := strings.Cut(string(data), ";")
			if arg != "?" {
				return false // set a colour: the emulator's job
			}
			var xrgb ansi.XRGBColor
			switch cmd {
			case 10:
				xrgb.Color = e.ForegroundColor()
			case 11:
				xrgb.Color = e.BackgroundColor()
			default:
				xrgb.Color = e.CursorColor()
			}
			if xrgb.Color != nil {
				s.reply("\x1b]" + strconv.Itoa(cmd) + ";" + xrgb.String() + "\x07")
			}
			return true
		})
	}
}

// clampParam lowers parameter i of params to most, if it is larger.
func clampParam(params ansi.Params, i, most int) {
	if i < len(params) && params[i].Param(0) > most {
		params[i] = ansi.Param(ansi.Parameter(most, params[i].HasMore()))
	}
}

// reportMode answers DECRQM for m: 1 set, 2 reset, 0 not recognised.
func (s *Screen) reportMode(m ansi.Mode) string {
	v := ansi.ModeNotRecognized
	if on, ok := s.modes[m]; ok {
		v = ansi.ModeReset
		if on {
			v = ansi.ModeSet
		}
	}
	return ansi.ReportMode(m, v)
}
