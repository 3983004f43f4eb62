package runner_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/report"
)

// A hand-over is told to the person at the terminal as it happens, on a line
// of its own, with the rule's reason; they drive from then on, and what they
// type reaches the program.
func TestHandOverIsToldAtTheTerminal(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	person, term := newPersonAtTerminal(t)
	pb := playbook(t, `
version: 1
name: handover
spawn: {command: [%q, -q, "Delete everything? "]}
danger:
  - {name: wipe, match: "Delete everything", action: manual}
`, prompter)
	reports := make(chan *report.Report, 1)
	go func() { reports <- run(t, pb, runner.WithTerminal(term)) }()
	person.WaitFor("clai: MANUAL: ", 1)
	person.Types("no\r")
	<-reports
	seen := person.Seen()
	told := seen[strings.Index(seen, "clai: MANUAL: "):]
	if !strings.Contains(told, "wipe") || !strings.Contains(told, "you drive now\r\n") {
		t.Errorf("the hand-over was told as %q", told)
	}
	if !strings.Contains(seen, "Delete everything? \r\nclai: MANUAL: ") {
		t.Errorf("the hand-over is not on a line of its own:\n%q", seen)
	}
	person.WaitFor("got: no", 1)
}
