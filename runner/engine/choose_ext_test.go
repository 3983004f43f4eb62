package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// A @clack/prompts select as create-vite draws it: radio buttons behind a gutter.
const clackSelect = "\x1b[2J\x1b[1;1H◆  Select a framework:\x1b[2;1H│  ● Vanilla\x1b[3;1H│  ○ Vue\x1b[4;1H│  ○ React\x1b[5;1H│  ↑/↓ to navigate • Enter: confirm\x1b[6;1H└"

func TestChooseOnARadioMenuBehindAGutter(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - {expect: "Select a framework:", choose: "React"}
  - expect: eof
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, clackSelect)
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B")
	// The whole block is redrawn with the marker on React: clai confirms.
	s.out(10*time.Millisecond, strings.NewReplacer("● Vanilla", "○ Vanilla", "○ React", "● React").Replace(clackSelect))
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B", "\r")
	s.exit(time.Millisecond, 0)
	s.wantResult(engine.Done, 0)
}

func TestChooseOnRadioButtonsSideBySide(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - {expect: "start now?", choose: "No"}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, "\x1b[2J\x1b[1;1H◆  Install with npm and start now?\x1b[2;1H│  ● Yes / ○ No\x1b[3;1H└")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[C")
	s.out(10*time.Millisecond, "\x1b[2;1H│  ○ Yes / ● No")
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[C", "\r")
}

func TestChooseRadioMenuListsItsOptionsWhenTheLabelIsMissing(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Select a framework:", choose: "Angular"}
`, engine.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, clackSelect)
	s.advance(150 * time.Millisecond)
	s.wantSent()
	s.wantState(engine.Manual)
	// The hint line below the buttons is not an option.
	if last := s.events[len(s.events)-1]; !strings.Contains(last.Reason, "(options: Vanilla | Vue | React)") {
		t.Fatalf("reason %q", last.Reason)
	}
}

// A whiptail-like menu without colours: a box, the options in one column, the
// current one in reverse video, and the buttons below.
func reverseMenu(current int) string {
	var b strings.Builder
	b.WriteString("\x1b[2J\x1b[1;1H┌──────────────────────┐\x1b[2;1H│ Pick a fruit         │")
	for i, o := range []string{"1 Apple ", "2 Banana", "3 Cherry"} {
		b.WriteString(fmt.Sprintf("\x1b[%d;1H│      ", i+4))
		if i == current {
			b.WriteString("\x1b[7m" + o + "\x1b[27m")
		} else {
			b.WriteString(o)
		}
		b.WriteString("        │")
	}
	b.WriteString("\x1b[8;1H│  <Ok>      <Cancel>  │\x1b[9;1H└──────────────────────┘")
	return b.String()
}

// The marker is reverse video alone: moving it changes no character on screen,
// and clai still sees it arrive, then confirms.
func TestChooseOnAReverseVideoMenu(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - {expect: "Pick a fruit", choose: "Cherry"}
`, engine.Config{Rows: 10, Cols: 40})
	s.out(time.Millisecond, reverseMenu(0))
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B")
	// The program took one Down only: clai sends the other.
	s.out(10*time.Millisecond, reverseMenu(1))
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B", "\x1b[B")
	s.out(10*time.Millisecond, reverseMenu(2))
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B", "\x1b[B", "\r")
}

// A list with no line marked: the label is on screen, and the reason says so.
func TestChooseSaysTheLabelIsOnScreenWithoutAMarker(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms}
steps:
  - {expect: "Pick a fruit", choose: "Banana"}
`, engine.Config{Rows: 10, Cols: 40})
	s.out(time.Millisecond, "\x1b[2J\x1b[1;1HPick a fruit\x1b[3;3H1 Apple\x1b[4;3H2 Banana\x1b[5;3H3 Cherry")
	s.advance(150 * time.Millisecond)
	s.wantSent()
	s.wantState(engine.Manual)
	const want = `choose "Banana": found "2 Banana" on screen, but not as an option of a menu: no line near it is marked as the current one`
	if last := s.events[len(s.events)-1]; !strings.Contains(last.Reason, want) {
		t.Fatalf("reason %q, want it to hold %q", last.Reason, want)
	}
}
