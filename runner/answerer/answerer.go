package answerer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/gates"
	"github.com/clai-sh/clai/runner/triage"
)

// The decisions of the event log's answerer lines (the field decision).
const (
	// Answered: every gate held and the answer was typed.
	Answered = "answered"
	// WouldAnswer: every gate held, in a dry run: nothing was typed.
	WouldAnswer = "would-answer"
	// Declined: a gate did not hold; the question stays for people.
	Declined = "declined"
	// Failed: the model gave no usable reply (an error, a timeout, garbage).
	Failed = "failed"
	// Refused: the session refused the answer (the screen changed, the
	// question closed meanwhile).
	Refused = "refused"
)

// LogEvent is the event of the answerer's log lines.
const LogEvent = "answerer"

// Answerer answers a session's questions through a model, behind gates.
type Answerer struct {
	model  Model
	gates  *gates.Gates
	pb     Playbook
	spec   *playbooks.Answerer
	log    *zap.Logger
	dryRun bool
	notice io.Writer

	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup

	// outcomes are the decisions of the latest questions, for Triage.
	outcomes *triage.Outcomes

	mu sync.Mutex
	// decisions are the decisions taken, for the report; dropped counts
	// those past MaxDecisions.
	decisions []Decision
	dropped   int
}

// MaxDecisions bounds the decisions an answerer keeps for the report.
const MaxDecisions = 1000

// Decision is what the answerer decided on a question.
type Decision struct {
	Question, Decision, Model string
	// Reply is the model's reply; nil when it gave none.
	Reply *Reply
	// Why says why it was declined, failed or refused.
	Why string
}

// maxOutcomes is how many decisions are kept for Triage.
const maxOutcomes = 64

// Option configures an Answerer.
type Option func(*Answerer)

// WithLogger logs each decision.
func WithLogger(l *zap.Logger) Option { return func(a *Answerer) { a.log = l } }

// WithDryRun makes the answerer say what it would answer, and answer
// nothing; notices (nil: none) is told of each such answer.
func WithDryRun(on bool, notices io.Writer) Option {
	return func(a *Answerer) { a.dryRun, a.notice = on, notices }
}

// New returns an answerer that asks model and answers by spec's gates and
// pb's danger rules.
func New(model Model, spec *playbooks.Answerer, pb *playbooks.Playbook, opts ...Option) *Answerer {
	a := &Answerer{
		model: model, spec: spec, gates: gates.New(spec, pb.Danger),
		pb:  Playbook{Name: pb.Name, Description: pb.Description},
		log: zap.NewNop(), outcomes: triage.NewOutcomes(maxOutcomes),
	}
	for _, o := range opts {
		o(a)
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	return a
}

// Timeout is how long one call of the model may take.
func (a *Answerer) Timeout() time.Duration { return a.spec.Timeout }

// Triage waits until question q is decided, or ctx ends, and returns the
// model's summary of it and whether it was answered (then nobody needs to
// be told of it); the notifications and the phone channels ask it before
// they tell people (see triage.Desk).
func (a *Answerer) Triage(ctx context.Context, q ask.Question) (summary string, answered bool) {
	return a.outcomes.Wait(ctx, q)
}

// Watch answers the questions of desk until the run ends (or Close). It
// returns at once. It takes of clai's decisions only the first after a danger
// hit, all it needs of them, and none of the screen's changes: a run's round
// trips with its program do not wake it.
func (a *Answerer) Watch(desk ask.Desk) {
	var updates <-chan ask.Update
	if kw, ok := desk.(ask.KindWatcher); ok {
		updates = kw.WatchKinds(a.ctx, ask.UpdateQuestion, ask.UpdateClosed, ask.UpdateDanger, ask.UpdateDecisionAfterDanger)
	} else {
		updates = desk.Watch(a.ctx)
	}
	a.running.Add(1)
	go func() {
		defer a.running.Done()
		w := &watch{a: a, desk: desk}
		for u := range updates {
			w.update(u)
		}
		w.stopAsking()
	}()
}

// Close stops the answerer once the run ended: a model call under way is
// cancelled, but in a dry run it is waited for (it is bounded by the
// timeout), so that what would have been answered is said. It returns when
// nothing of it runs any more.
func (a *Answerer) Close() {
	if !a.dryRun {
		a.cancel()
	}
	a.running.Wait()
	a.cancel()
}

// watch follows one session's updates.
type watch struct {
	a    *Answerer
	desk ask.Desk
	// dangerSince is set when a danger rule matched since the last answer.
	dangerSince bool
	history     []Exchange
	// asking cancels the model call of the open question.
	asking context.CancelFunc
}

func (w *watch) update(u ask.Update) {
	switch u.Kind {
	case ask.UpdateDanger:
		w.dangerSince = true
	case ask.UpdateDecision:
		// clai answered a prompt by its playbook: a danger rule's refusal,
		// or a rule's answer, is the last answer now.
		w.dangerSince = false
	case ask.UpdateQuestion:
		if u.Question != nil {
			w.ask(*u.Question)
		}
	case ask.UpdateClosed:
		w.stopAsking()
		if q := u.Question; q != nil && q.Closed != nil && q.Closed.How == ask.Answered {
			w.dangerSince = false
			w.remember(q)
		}
	}
}

// remember keeps an answered question for the history of the next request.
func (w *watch) remember(q *ask.Question) {
	w.history = append(w.history, Exchange{Question: q.Text, Answer: q.Closed.Sent, By: q.Closed.By, Channel: q.Closed.Channel})
	if len(w.history) > maxHistory {
		w.history = w.history[len(w.history)-maxHistory:]
	}
}

// stopAsking cancels the model call of the question that closed; in a dry
// run the call goes on, to say what would have been answered.
func (w *watch) stopAsking() {
	if w.asking != nil && !w.a.dryRun {
		w.asking()
		w.asking = nil
	}
}

// ask starts deciding q off the watch's goroutine, so that updates keep
// being read while the model thinks.
func (w *watch) ask(q ask.Question) {
	w.stopAsking()
	ctx, cancel := context.WithTimeout(w.a.ctx, w.a.spec.Timeout)
	w.asking = cancel
	req := Request{
		Question: q.Text, Options: ask.Labels(q.Options), Screen: q.Screen, Playbook: w.a.pb,
		History: append([]Exchange{}, w.history...), Summarize: w.a.spec.Summarize,
	}
	dangerSince := w.dangerSince
	w.a.running.Add(1)
	go func() {
		defer w.a.running.Done()
		defer cancel()
		w.a.decide(ctx, w.desk, q, req, dangerSince)
	}()
}

// decide asks the model about q and answers it if every gate holds. A
// hand-over is declined without asking, unless a summary is wanted.
func (a *Answerer) decide(ctx context.Context, desk ask.Desk, q ask.Question, req Request, dangerSince bool) {
	var reply Reply
	answered := false
	defer func() { a.outcomes.Decided(q.ID, reply.Summary, answered) }()
	if q.Reason != ask.Prompt && !a.spec.Summarize {
		_, why := a.gates.Check(q, ask.Screen{}, "", 0, dangerSince)
		a.record(q, Declined, nil, why)
		return
	}
	reply, err := a.model.Ask(ctx, req)
	if err != nil {
		why := err.Error()
		if a.ctx.Err() == nil && ctx.Err() == context.Canceled {
			why = "the question closed before the model answered"
		} else if ctx.Err() == context.DeadlineExceeded {
			why = fmt.Sprintf("the model gave no reply within %s: %v", a.spec.Timeout, err)
		}
		a.recordFailed(q, why, err)
		return
	}
	answer, why := a.gates.Check(q, desk.Screen(), reply.Answer, reply.Confidence, dangerSince)
	switch {
	case answer == nil:
		a.record(q, Declined, &reply, why)
	case a.dryRun:
		a.record(q, WouldAnswer, &reply, "")
		if a.notice != nil {
			fmt.Fprintf(a.notice, "clai: dry run: the answerer would answer %s %q with %s (%s, confidence %s: %s)\n",
				q.ID, ask.OneLine(q.Text, 80), shown(*answer), a.model.Name(), confidence(reply.Confidence), reply.Reason)
		}
	default:
		answer.By = a.by(reply)
		if _, err := desk.Answer(ctx, *answer); err != nil {
			a.record(q, Refused, &reply, err.Error())
			return
		}
		answered = true
		a.record(q, Answered, &reply, "")
	}
}

// by is who answered, as the report and the log show it: the model, its
// confidence and its reason.
func (a *Answerer) by(r Reply) string {
	return ask.OneLine(fmt.Sprintf("%s (confidence %s): %s", a.model.Name(), confidence(r.Confidence), r.Reason), MaxReason)
}

func confidence(c float64) string { return strconv.FormatFloat(c, 'f', -1, 64) }

// shown says what an answer types.
func shown(a ask.Answer) string {
	if a.Text != nil {
		return fmt.Sprintf("the text %q", *a.Text)
	}
	return fmt.Sprintf("the option %q", a.Choose)
}

// Decisions returns the decisions taken so far, in order, and how many
// more were not kept.
func (a *Answerer) Decisions() ([]Decision, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Decision(nil), a.decisions...), a.dropped
}

// recordFailed logs and keeps that the model gave no usable reply to q:
// why, and the excerpt of a reply that was read but cannot be used.
func (a *Answerer) recordFailed(q ask.Question, why string, err error) {
	var re *ReplyError
	if errors.As(err, &re) {
		a.record(q, Failed, nil, why, zap.String("reply", re.Excerpt))
		return
	}
	a.record(q, Failed, nil, why)
}

// record logs a decision on q, and keeps it for the report; why says why
// it was not answered; extra are more fields of its log line.
func (a *Answerer) record(q ask.Question, decision string, r *Reply, why string, extra ...zap.Field) {
	a.mu.Lock()
	if len(a.decisions) < MaxDecisions {
		a.decisions = append(a.decisions, Decision{Question: q.ID, Decision: decision, Model: a.model.Name(), Reply: r, Why: why})
	} else {
		a.dropped++
	}
	a.mu.Unlock()
	var fields []zap.Field
	if why != "" {
		fields = append(fields, zap.String("why", why))
	}
	fs := []zap.Field{zap.String("event", LogEvent), zap.String("decision", decision),
		zap.String("question", q.ID), zap.String("model", a.model.Name())}
	if r != nil {
		fs = append(fs, zap.String("answer", ask.OneLine(r.Answer, MaxReason)), zap.String("confidence", confidence(r.Confidence)),
			zap.String("reason", r.Reason))
		if r.Summary != "" {
			fs = append(fs, zap.String("summary", r.Summary))
		}
	}
	a.log.Info(LogEvent, append(append(fs, fields...), extra...)...)
}
