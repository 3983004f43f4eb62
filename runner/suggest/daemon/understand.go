package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

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
	trees *statusCalls
}

// NewUnderstander returns the Understander of clai's own packages; opts tune
// how project tasks are found.
func NewUnderstander(opts tasks.Options) Understander {
	return newUnderstanding(gitctx.NewResolver(), opts)
}

func newUnderstanding(git *gitctx.Resolver, opts tasks.Options) *understanding {
	return &understanding{git: git, tasks: opts, trees: &statusCalls{git: git, wait: statusWait, timeout: statusTimeout}}
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

// A work tree's git status is waited for statusWait at most, and runs on
// for statusTimeout at most: a repository too big to tell in time is left
// unknown rather than hold a prompt, and its status, once git tells it, is
// kept for the next ask.
const (
	statusWait    = 40 * time.Millisecond
	statusTimeout = 2 * time.Second
)

func (u *understanding) WorkTree(ctx context.Context, root string, refresh bool) (gitctx.Status, bool) {
	if root == "" {
		return gitctx.Status{}, false
	}
	return u.trees.status(ctx, root, refresh)
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
// of score.DefaultIgnore().
func NewRanker() (Ranker, error) { return NewRankerIgnoring(nil) }

// NewRankerIgnoring is NewRanker with the stop-list ignore (nil is
// score.DefaultIgnore()).
func NewRankerIgnoring(ignore []string) (Ranker, error) {
	danger, err := score.PresetDanger()
	if err != nil {
		return nil, fmt.Errorf("danger rules: %w", err)
	}
	return scoreRanker{danger: danger, ignore: ignore}, nil
}

func (r scoreRanker) Rank(ev Evidence, limit int) []Suggestion {
	ranked := score.Rank(Candidates(ev), score.Options{Previous: ev.Prev, Danger: r.danger, Limit: limit, Ignore: r.ignore, Now: ev.Now, Tree: workTree(ev), Shell: ev.Shell})
	out := make([]Suggestion, len(ranked))
	for i, s := range ranked {
		out[i] = Suggestion{Command: s.Command, Template: s.Template, Confidence: s.Confidence, Score: s.Score, Reasons: s.Reasons}
	}
	return out
}

// workTree is the work tree of ev as the ranker takes it: its files as
// paths from the shell's folder. nil when it is unknown.
func workTree(ev Evidence) *score.WorkTree {
	if ev.Tree == nil {
		return nil
	}
	fromCwd := func(paths []string) []string {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			rel, err := filepath.Rel(ev.Cwd, filepath.Join(ev.Root, filepath.FromSlash(p)))
			if err != nil {
				rel = filepath.Join(ev.Root, filepath.FromSlash(p))
			}
			out = append(out, rel)
		}
		return out
	}
	t := &score.WorkTree{Branch: ev.Tree.Branch, Unstaged: fromCwd(ev.Tree.Unstaged)}
	if !ev.Tree.Truncated {
		t.Changed = fromCwd(slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(ev.Tree.Unstaged), ev.Tree.Staged...)))))
	} else {
		t.Unstaged = nil // more changes than were read: none is the one
	}
	return t
}

// outsideShare is the share of its frequency a command run anywhere counts
// with outside any repository, where what ran out here lately counts in
// full: the cd into a project, not the project's own commands.
const outsideShare = 0.1

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
	frequent, share := ev.RepoCommands, 1.0
	if ev.RepoKey == "" {
		frequent, share = ev.GlobalCommands, outsideShare
	}
	for _, c := range frequent {
		cs = append(cs, score.Candidate{Template: c.Template, RepoFrequency: share * c.Score, Args: c.LastArgs, ArgsUses: int(c.ArgsUses)})
	}
	if ev.RepoKey == "" {
		// Outside any repository, what runs out here (the cd into one)
		// counts as often as it ran lately.
		for t, r := range ev.Recent {
			cs = append(cs, score.Candidate{Template: t, RepoFrequency: float64(r.Count)})
		}
	}
	for i := range cs {
		if r := ev.Recent[cs[i].Template]; r != nil {
			cs[i].Alternatives = r.Args
		}
	}
	found := make([]tasks.Task, len(ev.Tasks))
	for i, t := range ev.Tasks {
		found[i] = tasks.Task{Source: t.Source, Name: t.Name, Command: t.Command}
	}
	return append(cs, score.TaskCandidates(found)...)
}
