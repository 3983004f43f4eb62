package engine

import (
	"fmt"
	"strings"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/exitcode"
)

// The playbook's steps, in order: the current one, moving on, and how
// they are named in messages.

// currentStep returns the step the run is at, nil once all are done.
func (e *Engine) currentStep() *playbooks.Step { return e.steps.current(e.pb.Steps) }

// advanceStep moves on to the next step; an attached run with no rule to
// watch for leaves the pane once the steps are done.
func (e *Engine) advanceStep() {
	e.steps.next(e.now)
	if e.cfg.Attached && e.steps.idx == len(e.pb.Steps) && len(e.pb.Rules) == 0 {
		e.finish(Done, exitcode.Done, "the steps are done; the pane goes on without clai", false)
	}
}

func stepName(s *playbooks.Step) string {
	if s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("steps[%d]", s.Index)
}

func stepAcceptsEOF(s *playbooks.Step) bool {
	for _, c := range s.Branches() {
		if c.Match != nil && c.Match.HasEOF() {
			return true
		}
	}
	return false
}

func describeWait(s *playbooks.Step) string {
	if s.Expect != nil {
		return s.Expect.String()
	}
	parts := make([]string, 0, len(s.Cases))
	for _, c := range s.Cases {
		parts = append(parts, c.Match.String())
	}
	return "one of " + strings.Join(parts, ", ")
}
