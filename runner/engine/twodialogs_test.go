package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/engine"
)

// Two dialogs drawn at once (Gemini CLI started with a prompt in a folder it
// does not trust yet: the trust dialog and a command's approval): a key meant
// for one could land in the other, which no rule allowed. clai presses none
// and hands over; with one dialog left, it answers.
func TestTwoDialogsOnScreenPressNoKey(t *testing.T) {
	t.Parallel()
	const trust = "│ Do you trust the files in this folder?      │\r\n" +
		"│ ● 1. Trust folder (proj)                     │\r\n" +
		"│   2. Don't trust                             │\r\n"
	const approval = "│ ? Shell  rm -rf /tmp/x                       │\r\n" +
		"│ Allow execution of [Shell]?                  │\r\n" +
		"│ ● 1. Allow once                              │\r\n" +
		"│   2. No, suggest changes (esc)               │\r\n"
	for _, action := range []string{`choose: "Trust folder"`, `keys: [enter]`} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			s := newSim(t, header+"settings: {match: screen, settle: 100ms}\n"+
				"rules:\n  - {name: trust, match: \"Do you trust the files in this folder?\", "+action+", limit: 1}\n",
				engine.Config{Interactive: true, Rows: 20, Cols: 60})
			s.out(time.Millisecond, trust+approval)
			s.advance(time.Second)
			s.wantSent()
			s.wantState(engine.Manual)
			if !strings.Contains(s.timeline(), "2 dialogs on screen take keys (options: Trust folder (proj) | Don't trust; options: Allow once | No, suggest changes (esc))") {
				t.Fatalf("the hand-over does not say why:\n%s", s.timeline())
			}
		})
	}
	t.Run("one dialog", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, header+"settings: {match: screen, settle: 100ms}\n"+
			"rules:\n  - {name: trust, match: \"Do you trust the files in this folder?\", choose: \"Trust folder\", limit: 1}\n",
			engine.Config{Interactive: true, Rows: 20, Cols: 60})
		s.out(time.Millisecond, trust)
		s.advance(time.Second)
		s.wantSent("\r")
	})
}

// A dialog answered and left drawn, unchanged, above the next one takes no
// key: Gemini CLI keeps its answered trust dialog on screen above the
// approval it draws after it restarts.
func TestAnsweredDialogAboveTakesNoKey(t *testing.T) {
	t.Parallel()
	const trust = "│ Do you trust the files in this folder?      │\r\n" +
		"│ ● 1. Trust folder (proj)                     │\r\n" +
		"│   2. Don't trust                             │\r\n"
	s := newSim(t, header+"settings: {match: screen, settle: 100ms}\nrules:\n"+
		"  - {name: trust, match: \"Do you trust the files in this folder?\", choose: \"Trust folder\", limit: 1}\n"+
		"  - {name: allow, match: \"Allow execution of\", choose: \"Allow once\", limit: 1}\n",
		engine.Config{Interactive: true, Rows: 20, Cols: 60})
	s.out(time.Millisecond, trust)
	s.advance(time.Second)
	s.wantSent("\r")
	s.out(time.Millisecond, "\r\nrestarting...\r\n"+
		"│ ? Shell  ls                                  │\r\n"+
		"│ Allow execution of [Shell]?                  │\r\n"+
		"│ ● 1. Allow once                              │\r\n"+
		"│   2. No, suggest changes (esc)               │\r\n")
	s.advance(time.Second)
	s.wantSent("\r", "\r")
}

// The trust dialog drawn first and the approval a moment later, above it: by
// the time the screen is still both are there, and the trust rule's match
// does not make the approval above it look answered.
func TestTwoDialogsDrawnApartPressNoKey(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+"settings: {match: screen, settle: 1s}\nrules:\n"+
		"  - {name: trust, match: \"Do you trust the files in this folder?\", choose: \"Trust folder\", limit: 1}\n",
		engine.Config{Interactive: true, Rows: 20, Cols: 60})
	s.out(time.Millisecond, "\x1b[10;1H│ Do you trust the files in this folder?      │\r\n"+
		"│ ● 1. Trust folder (proj)                     │\r\n"+
		"│   2. Don't trust                             │\r\n")
	s.out(500*time.Millisecond, "\x1b[2;1H│ ? Shell  git branch -D main                  │\r\n"+
		"│ Allow execution of [Shell]?                  │\r\n"+
		"│ ● 1. Allow once                              │\r\n"+
		"│   2. No, suggest changes (esc)               │\r\n")
	s.advance(3 * time.Second)
	s.wantSent()
	s.wantState(engine.Manual)
}
