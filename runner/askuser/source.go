package askuser

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/questions"
)

// Config says where a Source finds the session's transcript and how it
// follows it.
type Config struct {
	// ConfigDir is Claude Code's folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
	ConfigDir string
	// Dir is the working folder Claude Code runs in; "" is the run's.
	Dir string
	// Session is the session's id, when known; else the transcript is the
	// newest of the project's changed at or after Since.
	Session string
	Since   time.Time
	// Poll is how often the transcript is looked for and read (default
	// 200ms).
	Poll time.Duration
	// Gap is the time between two keystrokes of an answer (default 200ms).
	Gap time.Duration
	// Shown is how long a question waits for Claude Code to show it before it
	// opens anyway (default 2s): an answer typed before its dialog is drawn
	// would be lost.
	Shown time.Duration
	// Warn is told once of a transcript that cannot be read.
	Warn func(error)
}

// Lines of Claude Code's question dialog whatever it asks, each at the start
// of a line: the start of the footer below its options (which goes on
// "↑/↓ to navigate" for one question, "Tab/Arrow keys to navigate" for
// several), and the heading of its review of several answers.
const (
	dialogFooter = "Enter to select ·"
	dialogReview = "Review your answers"
)

// callLag is how long the dialog Claude Code shows may wait for its call in
// the transcript, which is written after it is drawn at times, before the
// run asks about the dialog on its own.
const callLag = 3 * time.Second

// maxPending bounds the calls waiting for their result that a source keeps:
// past it, the oldest is forgotten.
const maxPending = 64

// Source returns the question source that follows the transcript cfg
// describes: for each AskUserQuestion call without a result, it asks its
// questions one after another, each once the one before it was answered
// through clai, and withdraws the open one (moved on) once the call's result
// is written, whoever answered.
func Source(cfg Config) questions.Source {
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	if cfg.Gap <= 0 {
		cfg.Gap = 200 * time.Millisecond
	}
	if cfg.Shown <= 0 {
		cfg.Shown = 2 * time.Second
	}
	return func(ctx context.Context, q questions.Session) {
		if cfg.Dir == "" {
			cfg.Dir = q.Dir()
		}
		if dir, err := filepath.EvalSymlinks(cfg.Dir); err == nil {
			cfg.Dir = dir // Claude Code names the folder as its getcwd does
		}
		q.ExpectDialogs(ctx, []string{dialogFooter}, callLag)
		s := &source{cfg: cfg, q: q, done: map[string]bool{}}
		s.run(ctx)
	}
}

// source is one run's follower of its transcript.
type source struct {
	cfg Config
	q   questions.Session
	f   *follower
	// pending are the calls without a result, oldest first; done the ids of
	// the calls that got one.
	pending []Call
	done    map[string]bool
	// asking is the call whose question n is open as id, closing when it
	// closes; nil when none is.
	asking  *Call
	n       int
	id      string
	closing <-chan ask.Question
	warned  bool
}

func (s *source) run(ctx context.Context) {
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		s.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case closed := <-s.closing:
			s.closed(ctx, closed)
		case <-tick.C:
		}
	}
}

// poll reads what the transcript gained, and asks the next question.
func (s *source) poll(ctx context.Context) {
	if s.f == nil {
		path, err := Transcripts(s.cfg.ConfigDir, s.cfg.Dir, s.cfg.Session, s.cfg.Since)
		if err != nil {
			s.warn(err)
			return
		}
		if path == "" {
			return
		}
		s.f = &follower{path: path}
	}
	err := s.f.read(func(line []byte) { s.take(ctx, Parse(line)) })
	if errors.Is(err, errGone) {
		s.f = nil
	} else if err != nil {
		s.warn(err)
	}
	s.next(ctx)
}

func (s *source) warn(err error) {
	if !s.warned && s.cfg.Warn != nil {
		s.warned = true
		s.cfg.Warn(err)
	}
}

// take notes the calls and results of a line.
func (s *source) take(ctx context.Context, e Entry) {
	for _, c := range e.Calls {
		if s.done[c.ID] || s.pendingIndex(c.ID) >= 0 {
			continue
		}
		if len(s.pending) == maxPending {
			s.q.ReleaseDialog(ctx, s.pending[0].ID)
			s.pending = s.pending[1:]
		}
		s.pending = append(s.pending, c)
		// Claude Code's dialog is the source's from now on, also before
		// its question opens and after it is answered: the run's prompt
		// detector asks nothing of it.
		s.q.ClaimDialog(ctx, c.ID, c.marks())
	}
	for _, id := range e.Results {
		if len(s.done) < 4*maxPending {
			s.done[id] = true
		}
		s.resolved(ctx, id)
	}
}

// pendingIndex is the index of the call id among the pending calls, or -1.
func (s *source) pendingIndex(id string) int {
	return slices.IndexFunc(s.pending, func(c Call) bool { return c.ID == id })
}

// resolved forgets the call id, which got its result, and withdraws its open
// question.
func (s *source) resolved(ctx context.Context, id string) {
	if i := s.pendingIndex(id); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
		s.q.ReleaseDialog(ctx, id)
	}
	if s.asking != nil && s.asking.ID == id {
		if s.id != "" {
			s.q.Withdraw(ctx, s.id, ask.MovedOn)
		}
		s.asking, s.id, s.closing = nil, "", nil
	}
}

// closed moves on after the open question closed: once answered through
// clai, to the call's next question; otherwise (typed at clai's terminal,
// another question opened, the run ended) the person drives the dialog, and
// the call is left to its result.
func (s *source) closed(ctx context.Context, q ask.Question) {
	s.id, s.closing = "", nil
	if q.Closed != nil && q.Closed.How == ask.Answered && q.Closed.Channel != ask.ChannelTerminal && s.n+1 < len(s.asking.Questions) {
		s.n++
		s.open(ctx)
	}
}

// next asks the oldest pending call's first question, when no call is being
// asked.
func (s *source) next(ctx context.Context) {
	if s.asking != nil || len(s.pending) == 0 {
		return
	}
	c := s.pending[0]
	s.asking, s.n = &c, 0
	s.open(ctx)
}

// open opens the asked call's question n, once Claude Code shows it.
func (s *source) open(ctx context.Context) {
	c := s.asking
	q := c.Questions[s.n]
	s.waitShown(ctx, q)
	x := engine.External{
		Question: ask.Question{
			Reason:      ask.Tool,
			Detail:      fmt.Sprintf("Claude Code's %s (%s), question %d of %d", ToolName, c.ID, s.n+1, len(c.Questions)),
			Header:      q.Header,
			Text:        q.Question,
			MultiSelect: q.MultiSelect,
			Other:       true,
		},
		Typist: typist{call: *c, n: s.n},
		Gap:    s.cfg.Gap,
	}
	for _, o := range q.Options {
		x.Question.Options = append(x.Question.Options, ask.Option{Label: o.Label, Description: o.Description})
	}
	s.id, s.closing = s.q.Ask(ctx, x)
}

// waitShown waits until the screen shows the question's text (its first
// line, as far as a narrow screen keeps it), at most cfg.Shown.
func (s *source) waitShown(ctx context.Context, q Question) {
	want := q.mark()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Shown)
	defer cancel()
	updates := s.q.Watch(ctx)
	for {
		if strings.Contains(s.q.Screen().Text, want) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case _, ok := <-updates:
			if !ok {
				return
			}
		}
	}
}

// mark is the start of the question as Claude Code's dialog shows it: its
// first line, as far as a narrow screen keeps it.
func (q Question) mark() string {
	first, _, _ := strings.Cut(strings.TrimSpace(q.Question), "\n")
	if r := []rune(first); len(r) > 24 {
		first = string(r[:24])
	}
	return first
}

// marks are what the call's dialog shows at the start of a line: the start
// of each of its questions, one at a time, its footer and its review.
func (c Call) marks() []string {
	marks := []string{dialogFooter, dialogReview}
	for _, q := range c.Questions {
		marks = append(marks, q.mark())
	}
	return marks
}
