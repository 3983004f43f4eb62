package suggesteval

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/clai-sh/clai/runner/suggest/normalize"
)

// Guess is a suggestion as a predictor ranks it: the command, its template
// (what is left to fill shows as slots), and the confidence it states, or
// a negative number for none.
type Guess struct {
	Cmd, Template string
	Confidence    float64
}

// Predictor suggests, before each step, what comes next; Observe then
// shows it what was run.
type Predictor interface {
	Name() string
	Predict(s Step, last string) []Guess
	Observe(s Step, last string)
}

// ks are the ranks the hit rates are measured at.
var ks = []int{1, 3, 5}

// Result is how a predictor did on a history.
type Result struct {
	Name  string
	Steps int
	// Exact[i] and ByTemplate[i] count the steps whose command is among
	// the first ks[i] guesses, by exact text and by template.
	Exact, ByTemplate [3]int
	// Buckets holds, per tenth of stated confidence, the top guesses that
	// stated one and how many of them were right by template.
	Buckets [10]Bucket
}

// Bucket is the top guesses of a tenth of stated confidence.
type Bucket struct {
	N, Hits int
	Stated  float64 // the sum of the confidences stated
}

// template is cmd's template, as the daemon understands it.
func template(cmd string) string { return normalize.Normalize(cmd).Template }

// Run asks each predictor before each step of the history, has apply (when
// not nil) do the step to the world, and shows the step to each predictor
// after. An error of apply stops the run.
func Run(steps []Step, apply func(Step) error, ps ...Predictor) ([]Result, error) {
	res := make([]Result, len(ps))
	last := map[string]string{} // per session
	for i, p := range ps {
		res[i].Name = p.Name()
	}
	for _, s := range steps {
		want, wantT := s.Cmd, template(s.Cmd)
		prev := last[s.Session]
		for i, p := range ps {
			res[i].score(p.Predict(s, prev), want, wantT)
		}
		if apply != nil {
			if err := apply(s); err != nil {
				return res, fmt.Errorf("step %q: %w", s.Cmd, err)
			}
		}
		for _, p := range ps {
			p.Observe(s, prev)
		}
		last[s.Session] = s.Cmd
	}
	return res, nil
}

// score counts the guesses made before a step whose command was want, of
// template wantT.
func (r *Result) score(guesses []Guess, want, wantT string) {
	r.Steps++
	for j, k := range ks {
		top := guesses[:min(k, len(guesses))]
		if slices.ContainsFunc(top, func(g Guess) bool { return g.Cmd == want }) {
			r.Exact[j]++
		}
		if slices.ContainsFunc(top, func(g Guess) bool { return g.Template == wantT }) {
			r.ByTemplate[j]++
		}
	}
	if len(guesses) > 0 && guesses[0].Confidence >= 0 {
		c := min(guesses[0].Confidence, 0.9999)
		b := &r.Buckets[int(c*10)]
		b.N++
		b.Stated += guesses[0].Confidence
		if guesses[0].Template == wantT {
			b.Hits++
		}
	}
}

// CalibrationGap is the largest gap, in points, between the mean stated
// confidence and the hit rate of a tenth with at least min guesses.
func (r Result) CalibrationGap(min int) float64 {
	gap := 0.0
	for _, b := range r.Buckets {
		if b.N >= min && b.N > 0 {
			stated, hit := b.Stated/float64(b.N), float64(b.Hits)/float64(b.N)
			gap = max(gap, 100*abs(stated-hit))
		}
	}
	return gap
}

// MeanGap is the mean gap, in points, between stated confidence and hit
// rate over the top guesses that stated one: each tenth's gap weighed by
// its guesses.
func (r Result) MeanGap() float64 {
	sum, n := 0.0, 0
	for _, b := range r.Buckets {
		if b.N > 0 {
			sum += float64(b.N) * 100 * abs(b.Stated/float64(b.N)-float64(b.Hits)/float64(b.N))
			n += b.N
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// WriteTable writes the hit rates of the results as a Markdown table.
func WriteTable(w io.Writer, res []Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| predictor\t| top-1 exact\t| top-3 exact\t| top-5 exact\t| top-1 template\t| top-3 template\t| top-5 template\t|")
	fmt.Fprintln(tw, "| ---\t| ---\t| ---\t| ---\t| ---\t| ---\t| ---\t|")
	for _, r := range res {
		pct := func(n int) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(r.Steps, 1))) }
		fmt.Fprintf(tw, "| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t|\n", r.Name, pct(r.Exact[0]), pct(r.Exact[1]), pct(r.Exact[2]),
			pct(r.ByTemplate[0]), pct(r.ByTemplate[1]), pct(r.ByTemplate[2]))
	}
	tw.Flush()
}

// WriteCalibration writes r's calibration: per tenth of stated confidence,
// the top guesses, their mean stated confidence and their hit rate.
func WriteCalibration(w io.Writer, r Result) {
	fmt.Fprintf(w, "| stated confidence | top guesses | mean stated | right (template) |\n| --- | --- | --- | --- |\n")
	for i, b := range r.Buckets {
		if b.N == 0 {
			continue
		}
		fmt.Fprintf(w, "| %d–%d%% | %d | %.0f%% | %.0f%% |\n", 10*i, 10*i+10, b.N, 100*b.Stated/float64(b.N), 100*float64(b.Hits)/float64(b.N))
	}
}

// counts ranks what was run by how often, the most first, ties by text.
type counts map[string]int

func (c counts) top(n int) []string {
	keys := slices.Collect(maps.Keys(c))
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(c[b], c[a]), strings.Compare(a, b))
	})
	return keys[:min(n, len(keys))]
}

// guesses turns ranked commands into guesses without a confidence.
func guesses(cmds []string) []Guess {
	out := make([]Guess, len(cmds))
	for i, c := range cmds {
		out[i] = Guess{Cmd: c, Template: template(c), Confidence: -1}
	}
	return out
}

// Frequency suggests the commands run most often: over all folders, or,
// with PerRepo, in the step's repository first.
type Frequency struct {
	PerRepo bool
	all     counts
	repo    map[string]counts
}

// Name names the baseline.
func (f *Frequency) Name() string {
	if f.PerRepo {
		return "repository frequency"
	}
	return "global frequency"
}

// Predict ranks by frequency.
func (f *Frequency) Predict(s Step, _ string) []Guess {
	if !f.PerRepo {
		return guesses(f.all.top(5))
	}
	return guesses(fill(f.repo[s.Repo].top(5), f.all.top(10), 5))
}

// Observe counts the step.
func (f *Frequency) Observe(s Step, _ string) {
	if f.all == nil {
		f.all, f.repo = counts{}, map[string]counts{}
	}
	f.all[s.Cmd]++
	if f.repo[s.Repo] == nil {
		f.repo[s.Repo] = counts{}
	}
	f.repo[s.Repo][s.Cmd]++
}

// Markov suggests what followed the session's last command most often; with
// Fallback, the repository's most frequent commands fill the rest.
type Markov struct {
	Fallback bool
	next     map[string]counts
	freq     Frequency
}

// Name names the baseline.
func (m *Markov) Name() string {
	if m.Fallback {
		return "Markov + frequency"
	}
	return "Markov"
}

// Predict ranks what followed last.
func (m *Markov) Predict(s Step, last string) []Guess {
	got := m.next[last].top(5)
	if m.Fallback {
		m.freq.PerRepo = true
		got = fill(got, cmdsOf(m.freq.Predict(s, last)), 5)
	}
	return guesses(got)
}

// Observe counts the transition.
func (m *Markov) Observe(s Step, last string) {
	if m.next == nil {
		m.next = map[string]counts{}
	}
	if m.next[last] == nil {
		m.next[last] = counts{}
	}
	m.next[last][s.Cmd]++
	m.freq.Observe(s, last)
}

func cmdsOf(gs []Guess) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Cmd
	}
	return out
}

// fill appends to first what of more it lacks, up to n.
func fill(first, more []string, n int) []string {
	out := slices.Clone(first)
	for _, c := range more {
		if len(out) >= n {
			break
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
