package learned

import (
	"context"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

// findTimeout bounds the search for the project's tasks.
const findTimeout = 3 * time.Second

// findTasks finds the tasks of the folder dir, for the tasks source.
func (l *Learner) findTasks(dir string) {
	ctx, cancel := context.WithTimeout(l.ctx, findTimeout)
	defer cancel()
	found, err := tasks.Find(ctx, dir, tasks.Options{})
	if err != nil {
		l.log.Info(LogEvent, zap.String("event", LogEvent), zap.String("decision", "tasks"), zap.Error(err))
	}
	l.mu.Lock()
	l.tasks = found
	l.mu.Unlock()
}

// asksForCommand matches a question that asks for a command to run: a
// command, a script, a task, a target or a recipe.
var asksForCommand = &lazyre.Regexp{Expr: `(?i)\b(command|script|task|target|recipe)s?\b`}

// appendTasks adds to out, up to MaxSuggestions, the project's tasks q asks
// for: of a question with options, those whose label names a task (by its
// name or its command); of one that takes a line and asks for a command,
// the tasks' commands. A task suggestion has no count and no confidence: no
// person gave it.
func appendTasks(out []ask.Suggestion, q ask.Question, found []tasks.Task) []ask.Suggestion {
	add := func(text string, option bool) {
		out = offer(out, ask.Suggestion{Text: text, Option: option, Source: string(playbooks.SourceTasks)})
	}
	if len(q.Options) > 0 {
		for _, o := range q.Options {
			for _, t := range found {
				if strings.EqualFold(o.Label, t.Name) || strings.EqualFold(o.Label, t.Command) {
					add(o.Label, true)
				}
			}
		}
		return out
	}
	if asksForCommand.Get().MatchString(q.Text) {
		for _, t := range found {
			add(t.Command, false)
		}
	}
	return out
}

// offer adds s to out unless out holds MaxSuggestions already or offers s's
// text.
func offer(out []ask.Suggestion, s ask.Suggestion) []ask.Suggestion {
	if len(out) >= MaxSuggestions || slices.ContainsFunc(out, func(o ask.Suggestion) bool { return o.Text == s.Text }) {
		return out
	}
	return append(out, s)
}
