package learned

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
)

// History asks the shell-history engine for at most limit commands that
// likely come next in the folder dir, the likeliest first, each with its
// confidence.
type History func(ctx context.Context, dir string, limit int) ([]HistoryCommand, error)

// HistoryCommand is a command the shell-history engine offers.
type HistoryCommand struct {
	Command    string
	Confidence float64
}

// historyTimeout bounds a question's wait for the shell-history engine.
const historyTimeout = 500 * time.Millisecond

// WithHistory gives the history source its engine (without one, the source
// offers nothing).
func WithHistory(h History) Option { return func(l *Learner) { l.history = h } }

// appendHistory adds to out, up to MaxSuggestions, the commands the
// shell-history engine offers for the program's folder, to a question that
// takes a line and asks for a command. No person gave them: their count is
// 0, and auto_answer never types them.
func (l *Learner) appendHistory(out []ask.Suggestion, q ask.Question) []ask.Suggestion {
	if l.history == nil || len(q.Options) > 0 || !asksForCommand.Get().MatchString(q.Text) || len(out) >= MaxSuggestions {
		return out
	}
	ctx, cancel := context.WithTimeout(l.ctx, historyTimeout)
	defer cancel()
	cmds, err := l.history(ctx, l.dir, MaxSuggestions)
	if err != nil {
		l.log.Info(LogEvent, zap.String("event", LogEvent), zap.String("decision", "history"), zap.String("question", q.ID), zap.Error(err))
		return out
	}
	for _, c := range cmds {
		if c.Command != "" {
			out = offer(out, ask.Suggestion{Text: c.Command, Confidence: c.Confidence, Source: string(playbooks.SourceHistory)})
		}
	}
	return out
}
