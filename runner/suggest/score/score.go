// Package score ranks the commands a shell may run next. It is pure: the
// caller gathers each candidate's evidence (how often it followed the
// previous command, in this repository and anywhere; how often it runs
// here; whether it is a project task) and score weighs it, merges the
// candidates that share a template, fills their slots when it may, and
// says how sure it is.
package score

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/suggest/normalize"
)

// Weights are what each kind of evidence is worth.
type Weights struct {
	RepoTransition   float64 // per log(1+count) of times it followed the previous command in this repository
	GlobalTransition float64 // per log(1+count) of times it followed the previous command anywhere
	RepoFrequency    float64 // per log(1+score) of its decayed frequency in this repository
	ProjectTask      float64 // once, when it is a task of the project
	Dangerous        float64 // once, when a danger rule matches it
}

// DefaultWeights are the starting weights.
var DefaultWeights = Weights{RepoTransition: 80, GlobalTransition: 60, RepoFrequency: 30, ProjectTask: 20, Dangerous: -50}

// Candidate is a command that may come next, with its evidence. Several
// candidates may share a template (one per query that found it): Rank
// merges them.
type Candidate struct {
	// Template is the command's template (normalize.Normalize).
	Template string
	// RepoTransitions is how many times the template followed the previous
	// command's template in this repository.
	RepoTransitions int
	// GlobalTransitions is how many times it followed it in any repository.
	GlobalTransitions int
	// RepoTransitionLast and GlobalTransitionLast are when it last did; zero
	// when unknown (a one-off is then weighed as any count).
	RepoTransitionLast, GlobalTransitionLast time.Time
	// RepoFrequency is its decayed frequency score in this repository.
	RepoFrequency float64
	// Task names the file that defines it as a project task ("Makefile",
	// "package.json"), or is "".
	Task string
	// Args are the last args used with the template in this repository, the
	// words for its slots in order; nil when unknown.
	Args []string
	// ArgsUses is how many of the template's uses in this repository had
	// exactly Args (0 is read as 1 when Args are given).
	ArgsUses int
	// Alternatives are other args the template was used with lately in
	// this repository, the latest first: each may make a suggestion of
	// its own, below the one of Args (see Rank).
	Alternatives [][]string
}

// Suggestion is a ranked command.
type Suggestion struct {
	// Command is what to run: the template with the slots Rank may fill
	// filled, the others left visible ("cp ./a <path>").
	Command string
	// Template is the command's template.
	Template string
	// Score is the weighed evidence.
	Score float64
	// Confidence is Score mapped into [0, 1], the measured chance that the
	// suggestion is what is run next: Score/(Score+HalfConfidence),
	// calibrated; 0 for a score of 0 or less.
	Confidence float64
	// Reasons say why, the weightiest first.
	Reasons []string
	// Danger names the danger rule the command matches, or is "".
	Danger string
}

// HalfConfidence is the score whose confidence is one half.
const HalfConfidence = 100

// Options tune Rank.
type Options struct {
	// Weights weigh the evidence; DefaultWeights when zero.
	Weights Weights
	// Previous is the template of the command that ran last, for the reasons.
	Previous string
	// Danger returns the name of the danger rule command matches, or "";
	// nil flags nothing. PresetDanger builds one from clai's presets.
	Danger func(command string) string
	// MinArgsUses is how many times the last args must have been used with a
	// template in the repository before they fill its slots; 1 when zero.
	MinArgsUses int
	// Limit caps the suggestions; all when 0 or less.
	Limit int
	// Ignore is the stop-list (see Ignored): templates on it are never
	// suggested. nil is defaultIgnore; an empty list ignores nothing.
	Ignore []string
	// Now is when the suggestions are asked, for the age of a one-off
	// transition; zero leaves one-offs weighed as any count.
	Now time.Time
	// Tree is the repository's work tree, nil when unknown or outside one:
	// the files changed in it and its branch fill the slots they surely
	// stand for (see fill).
	Tree *WorkTree
	// Shell is the asking shell ("bash", "zsh", "fish"; "" is bash), whose
	// quoting the filled words get.
	Shell string
}

// A transition seen fewer than MinHabit times is a one-off: its count
// halves every OneOffHalfLife since it was seen, so that a one-off seen
// once long ago ranks below the habits, while one of a moment ago still
// counts.
const (
	MinHabit       = 2
	OneOffHalfLife = 7 * 24 * time.Hour
)

// Rank merges the candidates by template, weighs them, and returns them best
// first (ties by template), each template once. For each template:
//
//	score = RepoTransition·ln(1+repo transitions)
//	      + GlobalTransition·ln(1+global transitions)
//	      + RepoFrequency·ln(1+repo frequency)
//	      + ProjectTask (when a task) + Dangerous (when a danger rule matches)
//
// where candidates sharing a template give the largest of each count (and
// the latest time), the tasks' sources joined, and the args with the most
// uses. A transition count under MinHabit is a one-off, its count halved
// every OneOffHalfLife since it was last seen. A candidate with no
// template, or on the stop-list, is skipped.
func Rank(candidates []Candidate, opts Options) []Suggestion {
	if opts.Weights == (Weights{}) {
		opts.Weights = DefaultWeights
	}
	if opts.Ignore == nil {
		opts.Ignore = defaultIgnore
	}
	candidates = slices.DeleteFunc(slices.Clone(candidates), func(c Candidate) bool { return Ignored(c.Template, opts.Ignore) })
	if opts.MinArgsUses <= 0 {
		opts.MinArgsUses = 1
	}
	merged := merge(candidates)
	out := make([]Suggestion, 0, len(merged))
	for _, c := range merged {
		s := suggest(c, opts)
		out = append(out, s)
		out = append(out, alternatives(c, s, opts)...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Template < out[j].Template
	})
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out
}

// merged is the evidence of one template.
type merged struct {
	Candidate
	tasks []string
}

// merge joins the candidates of each template, in the order templates first
// appear.
func merge(candidates []Candidate) []*merged {
	byTemplate := map[string]*merged{}
	var order []*merged
	for _, c := range candidates {
		if c.Template == "" {
			continue
		}
		m, ok := byTemplate[c.Template]
		if !ok {
			m = &merged{Candidate: Candidate{Template: c.Template}}
			byTemplate[c.Template] = m
			order = append(order, m)
		}
		m.RepoTransitions = max(m.RepoTransitions, c.RepoTransitions)
		m.GlobalTransitions = max(m.GlobalTransitions, c.GlobalTransitions)
		m.RepoTransitionLast = later(m.RepoTransitionLast, c.RepoTransitionLast)
		m.GlobalTransitionLast = later(m.GlobalTransitionLast, c.GlobalTransitionLast)
		m.RepoFrequency = math.Max(m.RepoFrequency, finite(c.RepoFrequency))
		if c.Task != "" && !slices.Contains(m.tasks, c.Task) {
			m.tasks = append(m.tasks, c.Task)
		}
		if c.Args != nil && (m.Args == nil || uses(&c) > uses(&m.Candidate)) {
			m.Args, m.ArgsUses = c.Args, uses(&c)
		}
		if len(c.Alternatives) > len(m.Alternatives) {
			m.Alternatives = c.Alternatives
		}
	}
	return order
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// uses is how many times a candidate's args were used: ArgsUses, and at
// least 1 when there are args.
func uses(c *Candidate) int {
	if c.Args == nil {
		return 0
	}
	return max(c.ArgsUses, 1)
}

// finite is x, or 0 when x is negative, NaN or infinite.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}

// suggest weighs one template's evidence.
func suggest(m *merged, opts Options) Suggestion {
	w := opts.Weights
	s := Suggestion{Template: m.Template}
	var filled string
	s.Command, filled = fill(&m.Candidate, opts)
	after := ""
	if opts.Previous != "" {
		after = fmt.Sprintf(" after `%s`", opts.Previous)
	}
	if m.RepoTransitions > 0 {
		n, ago := transitionCount(m.RepoTransitions, m.RepoTransitionLast, opts.Now)
		s.Score += w.RepoTransition * logCount(n)
		s.Reasons = append(s.Reasons, fmt.Sprintf("repo transition%s (%d×%s)", after, m.RepoTransitions, ago))
	}
	if m.GlobalTransitions > 0 {
		n, ago := transitionCount(m.GlobalTransitions, m.GlobalTransitionLast, opts.Now)
		s.Score += w.GlobalTransition * logCount(n)
		s.Reasons = append(s.Reasons, fmt.Sprintf("global transition%s (%d×%s)", after, m.GlobalTransitions, ago))
	}
	if m.RepoFrequency > 0 {
		s.Score += w.RepoFrequency * logCount(m.RepoFrequency)
		s.Reasons = append(s.Reasons, fmt.Sprintf("frequent in this repo (score %.1f)", m.RepoFrequency))
	}
	if filled != "" {
		s.Reasons = append(s.Reasons, filled)
	}
	if len(m.tasks) > 0 {
		s.Score += w.ProjectTask
		s.Reasons = append(s.Reasons, fmt.Sprintf("project task (%s)", strings.Join(m.tasks, ", ")))
	}
	if opts.Danger != nil {
		s.Danger = opts.Danger(s.Command)
		if s.Danger == "" && s.Command != s.Template {
			s.Danger = opts.Danger(s.Template)
		}
	}
	if s.Danger != "" {
		s.Score += w.Dangerous
		s.Reasons = append(s.Reasons, fmt.Sprintf("dangerous (%s)", s.Danger))
	}
	s.Confidence = confidence(s.Score)
	return s
}

// MaxAlternatives is how many suggestions a template may add with other
// recent args than its last ones; AlternativeShare is the share of its
// score the first of them gets, the next one that share of it again.
const (
	MaxAlternatives  = 2
	AlternativeShare = 0.5
)

// alternatives are the suggestions of m's template with the other args it
// was used with lately, when s, its own suggestion, was filled with its
// last args: the files edited before the last one, the folders gone to.
// Each weighs AlternativeShare of the one before it.
func alternatives(m *merged, s Suggestion, opts Options) []Suggestion {
	n := normalize.SlotCount(m.Template)
	if s.Command == m.Template || len(m.Args) != n || fillArgs(m.Template, m.Args) != s.Command {
		return nil // not filled, or filled by the work tree
	}
	var out []Suggestion
	seen := map[string]bool{s.Command: true}
	score := s.Score
	for _, args := range m.Alternatives {
		if len(out) == MaxAlternatives {
			break
		}
		command := fillArgs(m.Template, args)
		if len(args) != n || seen[command] {
			continue
		}
		seen[command] = true
		score *= AlternativeShare
		alt := Suggestion{Command: command, Template: m.Template, Score: score, Reasons: append(slices.Clip(s.Reasons), "used lately with other args")}
		if opts.Danger != nil {
			alt.Danger = opts.Danger(command)
		}
		if alt.Danger != "" && s.Danger == "" {
			alt.Score += opts.Weights.Dangerous
			alt.Reasons = append(alt.Reasons, fmt.Sprintf("dangerous (%s)", alt.Danger))
		}
		alt.Confidence = confidence(alt.Score)
		out = append(out, alt)
	}
	return out
}

// transitionCount is the count a transition weighs: the count itself for a
// habit (MinHabit or more) or when its age is unknown, else the one-off's
// count halved every OneOffHalfLife since last, with ", Nd ago" for the
// reason.
func transitionCount(count int, last, now time.Time) (float64, string) {
	if count >= MinHabit || last.IsZero() || now.IsZero() || !now.After(last) {
		return float64(count), ""
	}
	age := now.Sub(last)
	n := float64(count) * math.Exp2(-age.Hours()/OneOffHalfLife.Hours())
	return n, fmt.Sprintf(", last %dd ago", int(age.Hours()/24))
}

// logCount is ln(1+n): the tenth use of a command adds less than the second.
func logCount(n float64) float64 { return math.Log1p(n) }

// confidence maps a score into [0, 1]: the raw share score/(score +
// HalfConfidence), calibrated into the measured chance that the suggestion
// is what is run next (see calibration).
func confidence(score float64) float64 {
	if score <= 0 || math.IsNaN(score) {
		return 0
	}
	return calibrated(score / (score + HalfConfidence))
}

// calibration maps the raw share of a top suggestion to how often one of
// that share was right (by template), fitted by isotonic regression on the
// project's evaluation history of seed 7 (docs/suggest.md, "How good the
// suggestions are") and measured on others: a raw 0.85 was right 68% of
// the time, a raw 0.5 about half. Between its points it is linear.
var calibration = [][2]float64{{0, 0}, {0.09, 0.08}, {0.16, 0.1}, {0.26, 0.38}, {0.36, 0.41}, {0.5, 0.54}, {0.67, 0.63}, {0.83, 0.68}, {1, 0.69}}

// calibrated maps raw through calibration.
func calibrated(raw float64) float64 {
	for i := 1; i < len(calibration); i++ {
		a, b := calibration[i-1], calibration[i]
		if raw <= b[0] {
			return a[1] + (raw-a[0])*(b[1]-a[1])/(b[0]-a[0])
		}
	}
	return calibration[len(calibration)-1][1]
}
