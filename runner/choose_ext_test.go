package runner_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
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
`, runner.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, clackSelect)
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B")
	// The whole block is redrawn with the marker on React: clai confirms.
	s.out(10*time.Millisecond, strings.NewReplacer("● Vanilla", "○ Vanilla", "○ React", "● React").Replace(clackSelect))
	s.advance(150 * time.Millisecond)
	s.wantSent("\x1b[B\x1b[B", "\r")
	s.exit(time.Millisecond, 0)
	s.wantResult(runner.Done, 0)
}

func TestChooseOnRadioButtonsSideBySide(t *testing.T) {
	t.Parallel()
	s := newSim(t, header+`
settings: {match: screen, settle: 100ms, min_send_interval: 0s}
steps:
  - {expect: "start now?", choose: "No"}
`, runner.Config{Rows: 10, Cols: 60})
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
`, runner.Config{Rows: 10, Cols: 60})
	s.out(time.Millisecond, clackSelect)
	s.advance(150 * time.Millisecond)
	s.wantSent()
	s.wantState(runner.Manual)
	// The hint line below the buttons is not an option.
	if last := s.events[len(s.events)-1]; !strings.Contains(last.Reason, "(options: Vanilla | Vue | React)") {
		t.Fatalf("reason %q", last.Reason)
	}
}

// TestCreateViteExampleTests runs the tests of examples/create-vite.yaml, among them
// the replay of the recorded create-vite 9.3.0 session, where every menu is a
// @clack/prompts one.
func TestCreateViteExampleTests(t *testing.T) {
	t.Parallel()
	const path = "../examples/create-vite.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pb, findings := playbooks.Parse(path, data)
	if pb == nil {
		t.Fatalf("playbook: %v", findings)
	}
	results := runner.RunTests(t.Context(), pb)
	if len(results) == 0 {
		t.Fatal("the example has no tests")
	}
	for _, r := range results {
		if !r.Passed() {
			t.Errorf("test %q: %s", r.Test.Name, strings.Join(r.Failures, "; "))
		}
	}
}
