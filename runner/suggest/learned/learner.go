package learned

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/gates"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
	"github.com/clai-sh/clai/runner/suggest/tasks"
	"github.com/clai-sh/clai/runner/triage"
)

// The decisions of the event log's learned lines (the field decision).
const (
	// Learned: a person's answer was stored.
	Learned = "learned"
	// Answered: auto_answer typed the first suggestion.
	Answered = "answered"
	// WouldAnswer: auto_answer would have typed it, in a dry run.
	WouldAnswer = "would-answer"
	// Declined: a gate of auto_answer did not hold.
	Declined = "declined"
	// Refused: the session refused the answer (the question closed, the
	// screen changed).
	Refused = "refused"
	// Failed: the database could not be read or written.
	Failed = "failed"
)

// LogEvent is the event of the log lines of learned answers.
const LogEvent = "learned"

// MaxSuggestions is how many suggestions a question carries at most.
const MaxSuggestions = 3

// lookupTimeout bounds the lookup of a question's suggestions, which the run
// waits for as the question opens.
const lookupTimeout = 250 * time.Millisecond

// maxOutcomes is how many of auto_answer's decisions are kept for Triage.
const maxOutcomes = 64

// triageWait bounds how long those who tell people of a question wait for
// auto_answer's decision on it. It decides at once from the suggestions the
// question carries and types its answer; the bound only matters when the
// learner lags behind the run.
const triageWait = 2 * time.Second

// Learner learns from the answers people give in one run, gives its
// questions their suggestions, and answers from them where the playbook's
// suggest.auto_answer allows.
type Learner struct {
	path     string
	playbook string
	spec     *playbooks.Suggest
	secret   func(text string) bool
	gates    *gates.Gates
	// outcomes are auto_answer's decisions, for Triage.
	outcomes *triage.Outcomes
	log      *zap.Logger
	dryRun   bool
	notices  io.Writer

	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup

	openOnce sync.Once
	// opened is closed once the database was opened, or failed to.
	opened  chan struct{}
	store   *Store
	openErr error

	// dir is the program's folder; repo its repository's key, found at
	// the first answer learned.
	dir      string
	repoOnce sync.Once
	repo     string

	mu sync.Mutex
	// program is the run's program, once Watch knows it.
	program string
	// tasks are the tasks of the program's folder, once found (the tasks
	// source).
	tasks []tasks.Task
	// history is the shell-history engine of the history source.
	history History
}

// Option configures a Learner.
type Option func(*Learner)

// WithLogger logs what is learned and each decision of auto_answer.
func WithLogger(l *zap.Logger) Option { return func(x *Learner) { x.log = l } }

// WithDryRun makes auto_answer say on notices (nil: nowhere) what it would
// answer, and answer nothing.
func WithDryRun(on bool, notices io.Writer) Option {
	return func(x *Learner) { x.dryRun, x.notices = on, notices }
}

// New returns the learner of a run of pb, keeping its answers in the
// database at path, which it opens when first needed. The playbook's
// suggest: section (nil: none) says whether questions get suggestions and
// whether it answers; people's answers are learned either way.
func New(path string, pb *playbooks.Playbook, opts ...Option) *Learner {
	l := &Learner{path: path, playbook: pb.Name, spec: pb.Suggest, secret: secretQuestions(pb), log: zap.NewNop(), opened: make(chan struct{}), outcomes: triage.NewOutcomes(maxOutcomes)}
	if auto := pb.Suggest.Auto(); auto != nil {
		l.gates = gates.New(&playbooks.Answerer{MinConfidence: auto.MinConfidence, Allow: auto.Allow, Deny: auto.Deny}, pb.Danger)
	}
	for _, o := range opts {
		o(l)
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// open opens the database at first use.
func (l *Learner) open() (*Store, error) {
	l.openOnce.Do(func() {
		l.store, l.openErr = Open(l.ctx, l.path)
		close(l.opened)
	})
	return l.store, l.openErr
}

// openedWithin returns the database once it is open, waiting for it until
// ctx ends: the run's goroutine never opens it (another run may hold the
// lock of a migration).
func (l *Learner) openedWithin(ctx context.Context) (*Store, error) {
	select {
	case <-l.opened:
		return l.store, l.openErr
	case <-ctx.Done():
		return nil, fmt.Errorf("learned answers: the database did not open in time: %w", ctx.Err())
	}
}

// Suggesting reports whether the run's questions get suggestions.
func (l *Learner) Suggesting() bool {
	return l.spec.Has(playbooks.SourceAnswers) || l.spec.Has(playbooks.SourceTasks) || l.spec.Has(playbooks.SourceHistory) && l.history != nil
}

// Suggest returns the suggestions of q, at most MaxSuggestions: the answers
// people gave most to the same question of the playbook's program, with
// their share as the confidence (the answers source); then the project's
// tasks the question may ask for (the tasks source, see appendTasks), and
// the shell-history engine's next commands (the history source, see
// appendHistory). A
// question that is not at a prompt, or asks for a secret, gets none. It
// waits lookupTimeout at most.
func (l *Learner) Suggest(q ask.Question) []ask.Suggestion {
	if !l.Suggesting() || q.Reason != ask.Prompt || l.secret(q.Text) {
		return nil
	}
	var out []ask.Suggestion
	if l.spec.Has(playbooks.SourceAnswers) {
		out = l.answerSuggestions(q)
	}
	if l.spec.Has(playbooks.SourceTasks) {
		l.mu.Lock()
		found := l.tasks
		l.mu.Unlock()
		out = appendTasks(out, q, found)
	}
	if l.spec.Has(playbooks.SourceHistory) {
		out = l.appendHistory(out, q)
	}
	return out
}

// answerSuggestions returns the answers people gave most to q.
func (l *Learner) answerSuggestions(q ask.Question) []ask.Suggestion {
	ctx, cancel := context.WithTimeout(l.ctx, lookupTimeout)
	defer cancel()
	store, err := l.openedWithin(ctx)
	if err != nil {
		l.failed(q.ID, err)
		return nil
	}
	given, err := store.Answers(ctx, Key{Playbook: l.playbook, Program: l.programName(), Template: Template(q.Text)}, MaxSuggestions)
	if err != nil {
		l.failed(q.ID, err)
		return nil
	}
	out := make([]ask.Suggestion, 0, len(given))
	for _, g := range given {
		if err := ask.CheckText(g.Text); err != nil {
			// Stored before text answers were held to the rule: never
			// offered again.
			l.log.Info(LogEvent, zap.String("event", LogEvent), zap.String("decision", "skipped"), zap.String("question", q.ID),
				zap.String("why", "a stored answer cannot be typed: "+err.Error()))
			continue
		}
		s := ask.Suggestion{Text: g.Text, Confidence: g.Share, Count: g.Count, Source: string(playbooks.SourceAnswers)}
		if label := gates.OptionLabel(q.Options, g.Text); label != "" && g.Kind != KindText {
			s.Text, s.Option = label, true
		}
		out = append(out, s)
	}
	return out
}

// programName is the run's program.
func (l *Learner) programName() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.program
}

// repoKey is the repo_key of the repository the program runs in (see
// gitctx.RepoKey), asked of git once; "" outside one, or when git cannot
// tell.
func (l *Learner) repoKey() string {
	l.repoOnce.Do(func() {
		if c, err := gitctx.NewResolver().Lookup(l.ctx, l.dir, false); err == nil {
			l.repo = c.RepoKey
		}
	})
	return l.repo
}

// Watch learns from the answers to desk's questions, and answers them
// where auto_answer allows, until the run ends (or Close). It returns at
// once, or, with the tasks source, once the tasks of the program's folder
// were read.
func (l *Learner) Watch(desk ask.Desk) {
	if d, ok := desk.(interface{ Dir() string }); ok {
		l.dir = d.Dir()
	}
	l.mu.Lock()
	l.program = program(desk.Session().Program)
	l.mu.Unlock()
	if l.spec.Has(playbooks.SourceTasks) {
		// Before the program's output is read, so that its first question
		// has them: a few small files.
		l.findTasks(l.dir)
	}
	var updates <-chan ask.Update
	kinds := []string{ask.UpdateQuestion, ask.UpdateClosed, ask.UpdateDanger, ask.UpdateDecision}
	if kw, ok := desk.(ask.KindWatcher); ok {
		updates = kw.WatchKinds(l.ctx, kinds...)
	} else {
		updates = desk.Watch(l.ctx)
	}
	l.running.Add(1)
	go func() {
		defer l.running.Done()
		if l.spec.Has(playbooks.SourceAnswers) {
			if _, err := l.open(); err != nil {
				l.failed("", err)
			}
		}
		w := &watch{l: l, desk: desk}
		for u := range updates {
			w.update(u)
		}
	}()
}

// AutoAnswers reports whether the playbook's auto_answer answers questions
// (in a dry run it only says what it would answer).
func (l *Learner) AutoAnswers() bool { return l.gates != nil && !l.dryRun }

// Triage waits until auto_answer has decided question q, or ctx ends, and
// returns whether it answered (then nobody needs to be told of it); it has
// no summary. A question auto_answer does not answer, a hand-over (a danger
// rule's, a manual one) or any question when AutoAnswers is false, is left
// to people at once. The notifications and the phone channels ask it, within
// TriageWait, before they tell people (see triage.Desk).
func (l *Learner) Triage(ctx context.Context, q ask.Question) (summary string, answered bool) {
	if !l.AutoAnswers() || q.Reason != ask.Prompt {
		return "", false
	}
	return l.outcomes.Wait(ctx, q)
}

// TriageWait is how long Triage may be waited for.
func (l *Learner) TriageWait() time.Duration { return triageWait }

// TerminalAnswer learns the line a person typed at clai's terminal to
// answer q (see runner.WithTerminalAnswers), off the caller's goroutine.
func (l *Learner) TerminalAnswer(q ask.Question) {
	l.running.Add(1)
	go func() {
		defer l.running.Done()
		l.learn(q)
	}()
}

// Close stops the learner once the run ended, when what it learned is
// stored, and closes the database.
func (l *Learner) Close() {
	l.running.Wait()
	l.cancel()
	if l.store != nil {
		_ = l.store.Close()
	}
}

// watch follows one session's updates.
type watch struct {
	l    *Learner
	desk ask.Desk
	// dangerSince is set when a danger rule matched since the last answer.
	dangerSince bool
}

func (w *watch) update(u ask.Update) {
	switch u.Kind {
	case ask.UpdateDanger:
		w.dangerSince = true
	case ask.UpdateDecision:
		w.dangerSince = false
	case ask.UpdateQuestion:
		if u.Question != nil && w.l.gates != nil {
			w.l.autoAnswer(w.desk, *u.Question, w.dangerSince)
		}
	case ask.UpdateClosed:
		if q := u.Question; q != nil && q.Closed != nil && q.Closed.How == ask.Answered {
			w.dangerSince = false
			w.l.learn(*q)
		}
	}
}

// learn stores a person's answer to q.
func (l *Learner) learn(q ask.Question) {
	a, why := given(q, l.secret)
	if why != "" {
		l.log.Debug(LogEvent, zap.String("event", LogEvent), zap.String("decision", "skipped"), zap.String("question", q.ID), zap.String("why", why))
		return
	}
	a.Playbook, a.Program, a.Repo, a.At = l.playbook, l.programName(), l.repoKey(), q.Closed.At
	store, err := l.open()
	if err == nil {
		err = store.Record(l.ctx, a)
	}
	if err != nil {
		l.failed(q.ID, err)
		return
	}
	l.log.Info(LogEvent, zap.String("event", LogEvent), zap.String("decision", Learned), zap.String("question", q.ID),
		zap.String("template", a.Template), zap.String("kind", a.Kind), zap.String("channel", a.Channel))
}

// autoAnswer types q's first suggestion when every gate holds: people gave
// it min_count times or more, and the answerer's gates with auto_answer's
// confidence and patterns (a prompt only, no danger rule on the question,
// its screen or the answer nor since the last answer, an option of the
// question or a line where it has none, the screen unchanged).
func (l *Learner) autoAnswer(desk ask.Desk, q ask.Question, dangerSince bool) {
	answered := false
	defer func() { l.outcomes.Decided(q.ID, "", answered) }()
	auto := l.spec.Auto()
	if len(q.Suggestions) == 0 {
		l.decided(q, Declined, nil, "nobody answered this question before")
		return
	}
	top := q.Suggestions[0]
	if top.Source != string(playbooks.SourceAnswers) {
		l.decided(q, Declined, &top, "only people's answers are typed, not a suggestion of "+top.Source)
		return
	}
	if top.Count < auto.MinCount {
		l.decided(q, Declined, &top, fmt.Sprintf("people gave it %d times, min_count is %d", top.Count, auto.MinCount))
		return
	}
	answer, why := l.gates.Check(q, desk.Screen(), top.Text, top.Confidence, dangerSince)
	switch {
	case answer == nil:
		l.decided(q, Declined, &top, why)
		return
	case l.dryRun:
		l.decided(q, WouldAnswer, &top, "")
		if l.notices != nil {
			fmt.Fprintf(l.notices, "clai: dry run: would answer %s %q with the learned answer %q (given %d times, confidence %s)\n",
				q.ID, q.Text, top.Text, top.Count, confidence(top.Confidence))
		}
		return
	}
	answer.Channel = ask.ChannelLearned
	answer.By = fmt.Sprintf("learned answer (given %d times, confidence %s)", top.Count, confidence(top.Confidence))
	if _, err := desk.Answer(l.ctx, *answer); err != nil {
		l.decided(q, Refused, &top, err.Error())
		return
	}
	answered = true
	l.decided(q, Answered, &top, "")
}

// decided logs a decision of auto_answer on q.
func (l *Learner) decided(q ask.Question, decision string, s *ask.Suggestion, why string) {
	fs := []zap.Field{zap.String("event", LogEvent), zap.String("decision", decision), zap.String("question", q.ID)}
	if s != nil {
		fs = append(fs, zap.String("answer", s.Text), zap.Int("count", s.Count), zap.String("confidence", confidence(s.Confidence)))
	}
	if why != "" {
		fs = append(fs, zap.String("why", why))
	}
	l.log.Info(LogEvent, fs...)
}

// failed logs that the database could not be used.
func (l *Learner) failed(question string, err error) {
	l.log.Warn(LogEvent, zap.String("event", LogEvent), zap.String("decision", Failed), zap.String("question", question), zap.Error(err))
}

func confidence(c float64) string { return strconv.FormatFloat(c, 'f', 2, 64) }

// program names the program of a session's command: its file's base name.
func program(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return filepath.Base(argv[0])
}
