package score

import (
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

// TaskCandidates makes a candidate of each project task: its command's
// template, marked as a task of its file, so that it merges with the same
// command found in the history.
func TaskCandidates(found []tasks.Task) []Candidate {
	out := make([]Candidate, 0, len(found))
	for _, task := range found {
		out = append(out, Candidate{Template: normalize.Normalize(task.Command).Template, Task: task.Source})
	}
	return out
}
