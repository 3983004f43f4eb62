package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// evasions draw "rm -rf /" so that a terminal shows it on one line while the
// bytes, with escape sequences simply removed, do not hold it.
var evasions = []struct{ name, drawn string }{
	{"cursor forward for spaces", "rm\x1b[1C-rf\x1b[1C/"},
	{"cursor forward, no count", "rm\x1b[C-rf\x1b[C/"},
	{"HPR for spaces", "rm\x1b[1a-rf\x1b[a/"},
	{"backspace overwrite", "rm -rf /x\b "},
	{"backspaces then rewrite", "rm -rf xyz\b\b\b/  "},
	{"carriage return overwrite", "xx -rf /\rrm"},
	{"carriage return over a wide character", "世 -rf /\rrm"},
	{"wide characters overwritten after a backspace", "rm -rf 世\b\b/ "},
	{"tab then overwrite", "        xx -rf /\r\trm"},
	{"CAN aborts a CSI", "\x1b[\x18rm -rf /"},
	{"SUB aborts a CSI", "\x1b[1\x1arm -rf /"},
	{"CAN aborts an OSC", "\x1b]0;\x18rm -rf /"},
	{"SUB aborts an OSC", "\x1b]0;title\x1arm -rf /"},
	{"CAN aborts a DCS", "\x1bP1$r\x18rm -rf /"},
	{"SUB aborts an APC", "\x1b_data\x1arm -rf /"},
	{"CAN aborts an escape with intermediates", "\x1b(\x18rm -rf /"},
	{"ESC ends an OSC and starts a CSI", "\x1b]0;t\x1b[0mrm -rf /"},
	{"BS inside a CSI", "rm -rf /x\x1b[\b0m "},
	{"CR inside a CSI", "xx -rf /\x1b[\r0mrm"},
	{"cursor back then overwrite", "xx -rf /\x1b[8Drm"},
	{"CHA then overwrite", "xx -rf /\x1b[1Grm"},
	{"HPA then overwrite", "xx -rf /\x1b[`rm"},
	{"ECH blanks a character", "rmX-rf /\r\x1b[2C\x1b[1X"},
	{"EL cuts the tail", "rm -rf /ZZZ\b\b\b\x1b[K"},
	{"EL 0 from the cursor", "rm -rf /ZZZ\x1b[3D\x1b[0K"},
	{"DCH deletes a character", "rmX -rf /\r\x1b[2C\x1b[P"},
	{"ICH inserts a blank", "rm-rf /\r\x1b[2C\x1b[@"},
	{"insert mode", "-rf /\r\x1b[4hrm \x1b[4l"},
	{"save and restore the cursor", "\x1b7xx -rf /\x1b8rm"},
	{"CUP's column counts", "\x1b[3;5Hxx -rf /\x1b[5Grm"},
	{"tab to a stop it set", "\x1b[3g\x1b[4G\x1bH\r   xx -rf /\r\trm"},
	// Back up to a row already printed.
	{"cursor up", "xx -rf /\r\n\x1b[A\rrm"},
	{"cursor up three rows", "xx -rf /\r\nmore\r\nlines\r\n\x1b[3Arm"},
	{"CPL", "xx -rf /\r\nmore\r\n\x1b[2Frm"},
	{"reverse index", "xx -rf /\r\n\x1bMrm"},
	{"VPA", "\x1b[5dxx -rf /\r\nmore\r\n\x1b[5drm"},
	{"CUP to an earlier row", "\x1b[3;1Hxx -rf /\x1b[5;1Hmore\x1b[3;1Hrm"},
	{"CUP over a row drawn below it", "\x1b[9;1Hxx -rf /\x1b[2;1Habove\x1b[9;1Hrm"},
	{"DECSC and DECRC across rows", "\x1b7xx -rf /\r\nmore\r\n\x1b8rm"},
	{"SCOSC and SCORC across rows", "\x1b[sxx -rf /\r\nmore\r\n\x1b[urm"},
	{"down onto a row, past its text", "top\r\nrm -rf\x1b[Azz\x1b[B\x1b[8G/"},
	{"line feed onto a row, past its text", "rm -rf\r\nmore\x1b[A\r\n\x1b[A\x1b[8G/"},
	{"ED 2 then rewrite", "rmX-rf /\r\nmore\x1b[2J\x1b[Hrm\x1b[2;1Hzz\x1b[1;4H-rf /"},
	{"ED 1 then rewrite", "rmX-rf /\r\nmore\x1b[1J\x1b[Hrm\x1b[2;1Hzz\x1b[1;4H-rf /"},
	{"ED 0 then rewrite", "\x1b[2;1HrmX-rf /\x1b[H\x1b[J\x1b[2;1Hrm\x1b[3;1Hzz\x1b[2;4H-rf /"},
	{"RI at the top of a scrolling region", "\x1b[2;4r\x1b[2;1Hxx -rf /\x1bM\x1b[3;1Hrm"},
	{"line feed at the bottom of a scrolling region", "\x1b[2;3r\x1b[3;1Hxx -rf /\n\x1b[2;1Hrm"},
	{"IL pushes a row down", "xx -rf /\x1b[L\x1b[Brm"},
	{"back from the alternate screen", "xx -rf /\x1b[?1049h\x1b[2Jvim\x1b[?1049l\rrm"},
	// Characters that show as nothing, or as a blank.
	{"zero-width space", "rm\u200b -rf /"},
	{"zero-width joiner", "r\u200dm -rf /"},
	{"soft hyphen", "rm\u00ad -rf /"},
	{"byte order mark", "rm \ufeff-rf /"},
	{"right-to-left override", "rm\u202e -rf /"},
	{"variation selector", "r\ufe0fm -rf /"},
	{"no-break spaces", "rm\u00a0-rf\u00a0/"},
	{"em space", "rm\u2003-rf /"},
	{"ideographic space", "rm\u3000-rf /"},
	{"Hangul filler", "rm\u3164-rf /"},
	// Concealed text shows as blanks; a colour numbered 8 conceals nothing.
	{"concealed text", "rm\x1b[8mX\x1b[28m-rf /"},
	{"concealed among other attributes", "rm\x1b[1;8;31mX\x1b[0m-rf /"},
	{"concealed until a reset without parameters", "rm\x1b[8mX\x1b[m-rf /"},
	{"concealed wide character", "rm\x1b[8m世\x1b[28m-rf /"},
	{"concealed kept by DECSC", "rm\x1b[8m\x1b7\x1b[28m\x1b8X\x1b[28m-rf /"},
	{"colour 8 of 256", "\x1b[38;5;8mrm -rf /\x1b[0m"},
	{"colour 8 of 256, colon form", "\x1b[38:5:8mrm -rf /\x1b[0m"},
	{"true colour with an 8", "\x1b[48;2;8;8;8mrm -rf /\x1b[0m"},
}

// TestDangerSeesWhatATerminalShows draws a dangerous command in each of these
// ways, then asks to proceed: in the default stream mode the danger rule must
// fire and nothing may be sent, whether the drawing arrives in one read or one
// byte at a time.
func TestDangerSeesWhatATerminalShows(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/n]", line: "y", limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`
	for _, c := range evasions {
		for _, bytewise := range []bool{false, true} {
			s := newSim(t, pb, engine.Config{})
			if bytewise {
				for k := range len(c.drawn) {
					s.out(time.Millisecond, c.drawn[k:k+1])
				}
			} else {
				s.out(time.Millisecond, c.drawn)
			}
			s.out(time.Millisecond, "\r\nProceed? [y/n] ")
			s.advance(time.Second)
			if len(s.sent) > 0 || s.dangerHits("wipe") == 0 {
				t.Errorf("%s (%q, byte by byte: %v): sent %q, %d danger hits\n%s",
					c.name, c.drawn, bytewise, s.sent, s.dangerHits("wipe"), s.timeline())
				continue
			}
			s.wantState(engine.Manual)
		}
	}
}

// TestStreamShowsWhatATerminalShows checks the stream text of each evasion:
// its last line is the line a terminal shows.
func TestStreamShowsWhatATerminalShows(t *testing.T) {
	t.Parallel()
	for _, c := range evasions {
		var s engine.Stripper
		out := string(s.Flush(s.Append(nil, []byte(c.drawn))))
		lines := strings.Split(out, "\n")
		last := strings.TrimRight(lines[len(lines)-1], " ")
		if !strings.HasSuffix(last, "rm -rf /") {
			t.Errorf("%s: stream %q, last line %q", c.name, out, last)
		}
	}
}

// TestRedrawnDangerCountsOnce redraws a dangerous line: drawn again over itself
// it is not seen again, a spinner in front of it does not make it new, but a
// change that makes the text dangerous, however small, is a new hit.
func TestRedrawnDangerCountsOnce(t *testing.T) {
	t.Parallel()
	const pb = header + `
danger:
  - {name: wipe, match: {regex: '\brm\s+-rf\s+/(\s|$)'}, action: manual}
`
	s := newSim(t, pb, engine.Config{Interactive: true})
	s.out(time.Millisecond, "⠋ running rm -rf / ")
	for range 100 {
		s.out(time.Millisecond, "\r⠋ running rm -rf / ")
		s.out(time.Millisecond, "\r⠋ running rm\x1b[1C-rf\x1b[1C/\x1b[1C")
	}
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("the same line drawn again: %d danger hits, want 1\n%s", n, s.timeline())
	}
	frames := []string{"⠙", "⠹", "⠸", "⠼"}
	for i := range 100 {
		s.out(time.Millisecond, "\r"+frames[i%len(frames)])
	}
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("100 frames of a spinner in front: %d danger hits, want 1\n%s", n, s.timeline())
	}
	s.wantState(engine.Manual)

	// The text before the command turns it into one: new.
	s.out(time.Millisecond, "\r\n⠋ running xrm -rf / ")
	s.out(time.Millisecond, "\r⠙ running  ")
	if n := s.dangerHits("wipe"); n != 2 {
		t.Fatalf("a word boundary made by a redraw: %d danger hits, want 2\n%s", n, s.timeline())
	}
	// The text after it does.
	s.out(time.Millisecond, "\r\n⠋ running rm -rf /x")
	s.out(time.Millisecond, "\b ")
	if n := s.dangerHits("wipe"); n != 3 {
		t.Fatalf("a path cut short by a redraw: %d danger hits, want 3\n%s", n, s.timeline())
	}
	// Erased, then drawn again: new.
	s.out(time.Millisecond, "\r\x1b[K⠋ running")
	s.out(time.Millisecond, "\r⠙ running rm -rf / ")
	if n := s.dangerHits("wipe"); n != 4 {
		t.Fatalf("drawn again after it was erased: %d danger hits, want 4\n%s", n, s.timeline())
	}
}

// TestRedrawnRowsCountOnce redraws a screen of rows with the cursor moved up,
// as a TUI does: a spinner on the row of a dangerous command does not make it
// new, but the command drawn over another row is.
func TestRedrawnRowsCountOnce(t *testing.T) {
	t.Parallel()
	const pb = header + `
danger:
  - {name: wipe, match: {regex: '\brm\s+-rf\s+/(\s|$)'}, action: manual}
`
	s := newSim(t, pb, engine.Config{Interactive: true})
	s.out(time.Millisecond, "⠋ running rm -rf /\r\n  status\r\n")
	frames := []string{"⠙", "⠹", "⠸", "⠼"}
	for i := range 100 {
		s.out(time.Millisecond, "\x1b[2A\r"+frames[i%len(frames)]+" running rm -rf /\r\n  status\r\n")
	}
	if n := s.dangerHits("wipe"); n != 1 {
		t.Fatalf("100 frames of a spinner on the command's row: %d danger hits, want 1\n%s", n, s.timeline())
	}
	s.out(time.Millisecond, "\x1b[A\r\x1b[2Crm -rf /\r\n")
	if n := s.dangerHits("wipe"); n != 2 {
		t.Fatalf("the command drawn over the status row: %d danger hits, want 2\n%s", n, s.timeline())
	}
}

// TestDangerFollowsTheTerminalWidth draws a dangerous command over the start of
// a long line's last row: the engine knows where that row starts from the
// terminal's width, and from a resize.
func TestDangerFollowsTheTerminalWidth(t *testing.T) {
	t.Parallel()
	const pb = header + `
settings: {min_send_interval: 0s}
rules:
  - {name: proceed, match: "Proceed? [y/n]", line: "y", limit: 5}
danger:
  - {name: wipe, match: {regex: 'rm\s+-rf\s+/(\s|$)'}, action: manual}
`
	// 40 columns of padding, then "xx -rf /" at the start of the second row.
	drawn := strings.Repeat(".", 40) + "xx -rf /\rrm\r\nProceed? [y/n] "
	s := newSim(t, pb, engine.Config{Rows: 24, Cols: 40})
	s.out(time.Millisecond, drawn)
	s.advance(time.Second)
	s.wantSent()
	s.wantState(engine.Manual)

	s = newSim(t, pb, engine.Config{Rows: 24, Cols: 80})
	s.e.Resize(24, 40)
	s.out(time.Millisecond, drawn)
	s.advance(time.Second)
	s.wantSent()
	s.wantState(engine.Manual)
}
