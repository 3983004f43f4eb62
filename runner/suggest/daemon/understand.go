package daemon

import (
	"context"
	"fmt"

	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/normalize"
	"github.com/clai-sh/clai/runner/suggest/score"
	"github.com/clai-sh/clai/runner/suggest/store"
	"github.com/clai-sh/clai/runner/suggest/tasks"
)

// understanding is the Understander of clai's own packages: normalize for
// templates, gitctx for repositories, tasks for project tasks.
type understanding struct {
	git   *gitctx.Resolver
	tasks tasks.Options
}

// NewUnderstander returns the Understander of clai's own packages; opts tune
// how project tasks are found.
func NewUnderstander(opts tasks.Options) Understander {
	return &understanding{git: gitctx.NewResolver(), tasks: opts}
}

func (u *understanding) Command(line string) normalize.Command { return normalize.Normalize(line) }

// Repo asks git, through its cache. A folder git cannot tell of (git not
// installed, the folder gone) is taken as outside any repository.
func (u *understanding) Repo(ctx context.Context, cwd string, gitRan bool) (string, string) {
	if cwd == "" {
		return "", ""
	}
	c, err := u.git.Lookup(ctx, cwd, gitRan)
	if err != nil {
		return "", ""
	}
	return c.RepoKey, c.Root
}

func (u *understanding) Tasks(ctx context.Context, root string) ([]store.Task, error) {
	found, err := tasks.Find(ctx, root, u.tasks)
	out := make([]store.Task, len(found))
	for i, t := range found {
		out[i] = store.Task{Source: t.Source, Name: t.Name, Command: t.Command}
	}
	return out, err
}

// scoreRanker is the Ranker of runner/suggest/score, with the presets'
// danger rules.
type scoreRanker struct {
	danger func(string) string
	ignore []string
}

// NewRanker returns the Ranker of runner/suggest/score, which marks the
// commands the danger rules of clai's presets match, and leaves out those
// of score.DefaultIgnore.
func NewRanker() (Ranker, error) { return NewRankerIgnoring(nil) }

// NewRankerIgnoring is NewRanker with the stop-list ignore (nil is
// score.DefaultIgnore).
func NewRankerIgnoring(ignore []string) (Ranker, error) {
	danger, err := score.PresetDanger()
	if err != nil {
		return nil, fmt.Errorf("danger rules: %w", err)
	}
	return scoreRanker{danger: danger, ignore: ignore}, nil
}

func (r scoreRanker) Rank(ev Evidence, limit int) []Suggestion {
	ranked := score.Rank(Candidates(ev), score.Options{Previous: ev.Prev, Danger: r.danger, Limit: limit, Ignore: r.ignore, Now: ev.Now})
	out := make([]Suggestion, len(ranked))
	for i, s := range ranked {
		out[i] = Suggestion{Command: s.Command, Template: s.Template, Confidence: s.Confidence, Score: s.Score, Reasons: s.Reasons}
	}
	return out
}

// Candidates are the candidates of the evidence, one a row: the
// transitions in the repository and anywhere, the repository's frequent
// commands (outside a repository, the frequent ones anywhere) and its tasks.
// The last args come from the repository's rows only.
func Candidates(ev Evidence) []score.Candidate {
	var cs []score.Candidate
	for _, t := range ev.RepoTransitions {
		cs = append(cs, score.Candidate{Template: t.Next, RepoTransitions: int(t.Count), RepoTransitionLast: t.Last, Args: t.LastArgs, ArgsUses: int(t.ArgsUses)})
	}
	for _, t := range ev.GlobalTransitions {
		c := score.Candidate{Template: t.Next, GlobalTransitions: int(t.Count), GlobalTransitionLast: t.Last}
		if ev.RepoKey == "" {
			c.Args, c.ArgsUses = t.LastArgs, int(t.ArgsUses)
		}
		cs = append(cs, c)
	}
	frequent := ev.RepoCommands
	if ev.RepoKey == "" {
		frequent = ev.GlobalCommands
	}
	for _, c := range frequent {
		cs = append(cs, score.Candidate{Template: c.Template, RepoFrequency: c.Score, Args: c.LastArgs, ArgsUses: int(c.ArgsUses)})
	}
	found := make([]tasks.Task, len(ev.Tasks))
	for i, t := range ev.Tasks {
		found[i] = tasks.Task{Source: t.Source, Name: t.Name, Command: t.Command}
	}
	return append(cs, score.TaskCandidates(found)...)
}
