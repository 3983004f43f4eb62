package humanloop

import (
	"context"
	"io"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/daemon"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
	"github.com/clai-sh/clai/runner/suggest/learned"
)

// openLearner returns the learner of a run of pb, which stores people's
// answers in the user's state folder (of the run's environment, getenv) and, as the playbook's suggest: says,
// gives questions their suggestions and answers from them; nil (and a line
// in the log) when there is no state folder. The options to run with it
// are added to opts.
func openLearner(pb *playbooks.Playbook, getenv func(string) string, logger *zap.Logger, dryRun bool, notices io.Writer, opts *[]runner.Option) *learned.Learner {
	path, err := learned.DefaultPath(getenv)
	if err != nil {
		logger.Warn(learned.LogEvent, zap.String("event", learned.LogEvent), zap.String("decision", learned.Failed), zap.Error(err))
		return nil
	}
	lopts := []learned.Option{learned.WithLogger(logger), learned.WithDryRun(dryRun, notices)}
	if pb.Suggest.Has(playbooks.SourceHistory) {
		lopts = append(lopts, learned.WithHistory(daemonHistory(daemon.NewClient(hookproto.SocketPath()))))
	}
	l := learned.New(path, pb, lopts...)
	*opts = append(*opts, runner.WithDesk(learnerWatch(l)), runner.WithTerminalAnswers(l.TerminalAnswer))
	if l.Suggesting() {
		*opts = append(*opts, runner.WithSuggestions(l.Suggest))
	}
	if pb.Suggest.Auto() != nil && !dryRun {
		// A headless run waits at a question for it.
		*opts = append(*opts, runner.WithRemote(true))
	}
	return l
}

// daemonHistory asks the suggestion daemon (clai daemon) for the commands
// that likely come next in a folder, as no shell in particular.
func daemonHistory(c *daemon.Client) learned.History {
	return func(ctx context.Context, dir string, limit int) ([]learned.HistoryCommand, error) {
		reply, err := c.Suggest(ctx, daemon.SuggestRequest{Cwd: dir, Limit: limit})
		if err != nil {
			return nil, err
		}
		out := make([]learned.HistoryCommand, len(reply.Suggestions))
		for i, s := range reply.Suggestions {
			out[i] = learned.HistoryCommand{Command: s.Command, Confidence: s.Confidence}
		}
		return out, nil
	}
}

// learnerWatch is how a run hands l its desk (runner.WithDesk).
func learnerWatch(l *learned.Learner) func(ask.Desk) {
	return func(d ask.Desk) { l.Watch(learnerDesk{d}) }
}

// learnerDesk is a run's desk as the learner watches it. The learner takes
// clai's decisions only to know whether a danger rule matched since the last
// answer (auto_answer's gate): it is handed the first decision after each
// danger hit, which tells it as much, and not one a round trip of the program
// with its playbook, which would wake it at each.
type learnerDesk struct{ ask.Desk }

// WatchKinds is the desk's, with clai's decisions taken after a danger hit
// only.
func (d learnerDesk) WatchKinds(ctx context.Context, kinds ...string) <-chan ask.Update {
	kw, ok := d.Desk.(ask.KindWatcher)
	if !ok {
		return d.Desk.Watch(ctx)
	}
	asked := make([]string, len(kinds))
	for i, k := range kinds {
		if k == ask.UpdateDecision {
			k = ask.UpdateDecisionAfterDanger
		}
		asked[i] = k
	}
	return kw.WatchKinds(ctx, asked...)
}

// Dir is the program's folder, when the desk knows it.
func (d learnerDesk) Dir() string {
	if f, ok := d.Desk.(interface{ Dir() string }); ok {
		return f.Dir()
	}
	return ""
}
