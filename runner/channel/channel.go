// Package channel holds the two-way channels a run asks its questions on and
// takes their answers from: a phone, through a service that clai reaches
// without an inbound port (see docs/telegram.md and docs/ntfy.md). Every
// answer goes through the run's ask.Desk, which refuses a stale or closed
// one, under the channel's own name.
//
// A new service implements Channel: Serve watches the desk's updates, tells
// of each question with a button per option whose data is a Button, and
// hands each press to Press, which answers the question it was pressed for
// or refuses it with MovedOn. With an answerer, the Set hands each channel a
// desk whose questions come once the answerer has left them to people
// (WithTriage), so a channel needs nothing of its own for it.
package channel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/triage"
)

// Channel is a two-way channel: it tells people of a run's questions and
// answers them through the desk.
type Channel interface {
	// Name is the channel's name in answers, logs and reports (see the
	// ask.Channel constants).
	Name() string
	// Serve tells of desk's questions and answers them until the run ends
	// (desk.Watch closes) or ctx ends. It returns at once when ctx ends,
	// whatever the service does.
	Serve(ctx context.Context, desk ask.Desk) error
}

// Multi is a channel that serves many runs at once, as the hub has it: one
// poller of the service for them all, each input routed to the session it
// names.
type Multi interface {
	Channel
	// ServeAll tells of the questions of every desk that joins, from its
	// joining until its run ends, and answers them, until ctx ends.
	ServeAll(ctx context.Context, joins <-chan ask.Desk) error
}

// Ledger remembers what a channel delivered beyond the life of its
// process: a hub killed and started again finds each open question's
// message where it left it, neither sends it twice nor loses its follow-up.
// Its methods may be called from any goroutine.
type Ledger interface {
	// Delivered is what Record kept for key, if anything.
	Delivered(key string) (data string, ok bool)
	// Record keeps data for key: a message was delivered.
	Record(key, data string)
	// Forget lets key go: its question closed and was followed up.
	Forget(key string)
}

// noLedger remembers nothing: a channel's own process is all there is.
type noLedger struct{}

func (noLedger) Delivered(string) (string, bool) { return "", false }
func (noLedger) Record(string, string)           {}
func (noLedger) Forget(string)                   {}

// ledgerKey names one destination's delivery of question q in a Ledger.
func ledgerKey(channel string, q *ask.Question, destination string) string {
	return strings.Join([]string{channel, q.Session, q.ID, q.ScreenHash, destination}, "|")
}

// Grace is how long the end of a run waits for its channels to say it ended;
// then they are stopped.
const Grace = 3 * time.Second

// The event log's lines of the channels.
const (
	LogIgnored = "channel-ignored" // an input from someone not allow-listed, or beyond the rate
	LogRefused = "channel-refused" // a press or answer the question refused
	LogAnswer  = "channel-answer"  // an answer that was typed
	LogFailed  = "channel-failed"  // the service failed; the channel tries again
)

// MovedOn is what a press for a question that closed, or whose screen
// changed, is told; nothing is typed.
const MovedOn = "this question has moved on"

// Set runs a run's channels.
type Set struct {
	channels []Channel
	log      *zap.Logger
	grace    time.Duration
	ctx      context.Context
	stop     context.CancelFunc
	wg       sync.WaitGroup
	closed   sync.Once
	// triage, when set, is asked about each question before a phone is
	// told of it.
	triage     triage.Func
	triageWait time.Duration
}

// SetOption configures a Set.
type SetOption func(*Set)

// WithTriage has the channels tell of a question only once decide has left
// it to people, or wait has passed (see triage.Desk): a question the
// answerer takes reaches no phone.
func WithTriage(decide triage.Func, wait time.Duration) SetOption {
	return func(s *Set) { s.triage, s.triageWait = decide, wait }
}

// NewSet returns the channels, ready for Watch; grace bounds Close (0: Grace).
func NewSet(channels []Channel, log *zap.Logger, grace time.Duration, opts ...SetOption) *Set {
	if grace <= 0 {
		grace = Grace
	}
	if log == nil {
		log = zap.NewNop()
	}
	s := &Set{channels: channels, log: log, grace: grace}
	for _, o := range opts {
		o(s)
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	return s
}

// Watch starts each channel on desk; it returns at once (runner.WithDesk).
func (s *Set) Watch(desk ask.Desk) {
	if s.triage != nil {
		desk = triage.Desk(desk, s.triage, s.triageWait)
	}
	for _, c := range s.channels {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := c.Serve(s.ctx, desk); err != nil && s.ctx.Err() == nil {
				s.log.Warn(LogFailed, zap.String("event", LogFailed), zap.String("channel", c.Name()), zap.String("error", err.Error()))
			}
		}()
	}
}

// Close is called once the run ended: the channels have the grace to say
// so, then they are stopped. It returns when every channel has returned.
func (s *Set) Close() {
	s.closed.Do(func() {
		done := make(chan struct{})
		go func() { s.wg.Wait(); close(done) }()
		timer := time.NewTimer(s.grace)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
		}
		s.stop()
		<-done
	})
}

// Button is what a button carries: the session, the question and the screen
// it was asked on, and the option, or the suggestion (Suggestion set: Option
// is its index among the question's suggestions). A press is taken only
// while that very question is open on that very screen.
type Button struct {
	Session    string
	Question   string
	ScreenHash string
	Option     int
	Suggestion bool
}

// MaxButtonData bounds a button's encoded data (Telegram's callback_data
// holds 64 bytes).
const MaxButtonData = 64

// Encode is b as a button's data; a suggestion's index is written s0, s1 ….
func (b Button) Encode() string {
	opt := strconv.Itoa(b.Option)
	if b.Suggestion {
		opt = "s" + opt
	}
	return strings.Join([]string{"c1", b.Session, b.Question, b.ScreenHash, opt}, "|")
}

// ParseButton reads a button's data; anything else is an error.
func ParseButton(data string) (Button, error) {
	if len(data) > MaxButtonData {
		return Button{}, fmt.Errorf("the button's data is %d bytes, more than %d", len(data), MaxButtonData)
	}
	parts := strings.Split(data, "|")
	if len(parts) != 5 || parts[0] != "c1" {
		return Button{}, errors.New("the button's data is not clai's")
	}
	index, suggestion := strings.CutPrefix(parts[4], "s")
	opt, err := strconv.Atoi(index)
	if err != nil || opt < 0 || opt > 99 || strconv.Itoa(opt) != index {
		return Button{}, errors.New("the button names no option")
	}
	return Button{Session: parts[1], Question: parts[2], ScreenHash: parts[3], Option: opt, Suggestion: suggestion}, nil
}

// Buttons are the buttons of q, at most max (0: all): one per suggestion,
// the likeliest first, then one per option.
func Buttons(q *ask.Question, max int) []Button {
	var out []Button
	add := func(i int, suggestion bool) {
		if max == 0 || len(out) < max {
			out = append(out, Button{Session: q.Session, Question: q.ID, ScreenHash: q.ScreenHash, Option: i, Suggestion: suggestion})
		}
	}
	for i := range q.Suggestions {
		add(i, true)
	}
	for i := range q.Options {
		add(i, false)
	}
	return out
}

// Label is what b shows for q, which it was made for: the option's label,
// or the suggestion with its share of people's answers (or its source).
func (b Button) Label(q *ask.Question) string {
	if !b.Suggestion {
		return q.Options[b.Option].Label
	}
	s := q.Suggestions[b.Option]
	if s.Count > 0 {
		return fmt.Sprintf("%s (%.0f%%)", s.Text, 100*s.Confidence)
	}
	return fmt.Sprintf("%s (%s)", s.Text, s.Source)
}

// answer is the answer b gives to q, which it was made for.
func (b Button) answer(q *ask.Question) ask.Answer {
	a := ask.Answer{Question: q.ID, ScreenHash: b.ScreenHash}
	switch {
	case !b.Suggestion:
		a.Choose = q.Options[b.Option].Label
	case q.Suggestions[b.Option].Option:
		a.Choose = q.Suggestions[b.Option].Text
	default:
		text := q.Suggestions[b.Option].Text
		a.Text = &text
	}
	return a
}

// Press answers the question b was made for with its option, as by through
// channel. A button of another session, of a question that is no longer
// open, or of a screen that changed is refused with MovedOn, and nothing is
// typed; so is any answer the desk refuses.
func Press(ctx context.Context, desk ask.Desk, b Button, by, channel string) (ask.Sent, error) {
	s := desk.Session()
	q := s.Question
	if b.Session != s.ID || q == nil || q.Closed != nil || q.ID != b.Question || q.ScreenHash != b.ScreenHash ||
		!b.Suggestion && b.Option >= len(q.Options) || b.Suggestion && b.Option >= len(q.Suggestions) {
		return ask.Sent{}, &ask.Refusal{Code: ask.RefusedClosed, Reason: MovedOn}
	}
	a := b.answer(q)
	a.By, a.Channel = by, channel
	sent, err := desk.Answer(ctx, a)
	var r *ask.Refusal
	if errors.As(err, &r) && (r.Code == ask.RefusedClosed || r.Code == ask.RefusedStale || r.Code == ask.RefusedNoQuestion || r.Code == ask.RefusedEnded) {
		return ask.Sent{}, &ask.Refusal{Code: r.Code, Reason: MovedOn}
	}
	return sent, err
}

// pressIn is Press on the desk of the session b was made for, among
// served, which it finds at once (on the serve's loop) and presses when
// called (off it); a button of a session not served is refused with
// MovedOn.
func pressIn(ctx context.Context, served *desks, b Button, by, channel string) func() (ask.Sent, error) {
	desk, ok := served.session(b.Session)
	if !ok {
		return func() (ask.Sent, error) { return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: MovedOn} }
	}
	return func() (ask.Sent, error) { return Press(ctx, desk, b, by, channel) }
}

// limiter lets at most max inputs through in any per.
type limiter struct {
	max   int
	per   time.Duration
	now   func() time.Time
	times []time.Time
}

func newLimiter(max int, per time.Duration) *limiter {
	return &limiter{max: max, per: per, now: time.Now}
}

// allow says whether one more input is taken now, and counts it if so.
func (l *limiter) allow() bool {
	now := l.now()
	kept := l.times[:0]
	for _, t := range l.times {
		if now.Sub(t) < l.per {
			kept = append(kept, t)
		}
	}
	l.times = kept
	if len(l.times) >= l.max {
		return false
	}
	l.times = append(l.times, now)
	return true
}

// Bounds of what a channel takes from a service.
const (
	// MaxResponse bounds a response's body.
	MaxResponse = 1 << 20
	// MaxText bounds an input's text; a longer one is ignored.
	MaxText = 4096
	// InputRate inputs at most are taken in any InputPer; more are ignored.
	InputRate = 20
	InputPer  = time.Minute
)

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// excerpt is the last lines of a screen, each cut short, for a message.
func excerpt(screen string, lines, width int) string {
	rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(rows) > lines {
		rows = rows[len(rows)-lines:]
	}
	for i, r := range rows {
		rows[i] = cut(strings.TrimRight(r, " "), width)
	}
	return strings.Join(rows, "\n")
}

// cut shortens s to at most n characters as Telegram counts them (UTF-16
// code units; a rune beyond the BMP is two), ending it with "…" when cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n-1 {
			if units16(s[i:]) <= n-units {
				return s
			}
			return s[:i] + "…"
		}
		units += w
	}
	return s
}

// units16 is the length of s in UTF-16 code units.
func units16(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// questionText is what a message says of q, without its buttons.
func questionText(s ask.Session, q *ask.Question) string {
	var b strings.Builder
	fmt.Fprintf(&b, "clai: %s asks (%s, %s)\n\n", s.Name, where(s), q.Reason)
	if q.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", cut(q.Summary, 300))
	}
	fmt.Fprintf(&b, "%s\n", cut(q.Text, 500))
	if q.Detail != "" {
		fmt.Fprintf(&b, "(%s)\n", cut(q.Detail, 300))
	}
	if q.Screen != "" {
		fmt.Fprintf(&b, "\n--- screen ---\n%s\n", excerpt(q.Screen, 12, 200))
	}
	return b.String()
}

// closedText says how q closed.
func closedText(q *ask.Question) string {
	c := q.Closed
	switch {
	case c == nil:
		return "closed"
	case c.How == ask.Answered:
		return fmt.Sprintf("answered by %s via %s: %s", cut(ask.Visible(c.By), 64), ask.Visible(c.Channel), cut(ask.Visible(c.Sent), 200))
	case c.How == ask.MovedOn:
		return "moved on: the program went on by itself"
	}
	return "closed: the run ended"
}

// watchKinds are the updates a channel tells of.
var watchKinds = []string{ask.UpdateQuestion, ask.UpdateClosed}

// serveOne is serve of one run's desk: it returns once that run ended.
func serveOne[T any](ctx context.Context, desk ask.Desk, ob outboxConfig, buffer int,
	read func(context.Context, chan<- T),
	tell func(*outbox, ask.Desk, ask.Update),
	handle func(context.Context, *outbox, *desks, T)) error {
	joins := make(chan ask.Desk, 1)
	joins <- desk
	close(joins)
	return serve(ctx, joins, true, ob, buffer, read, tell, handle)
}

// deskUpdate is an update of one of a Serve's desks; gone, when the desk's
// watch closed.
type deskUpdate struct {
	desk   ask.Desk
	update ask.Update
	gone   bool
}

// serve is a channel's loop: it tells the service of each update of every
// desk that joins until ctx ends (once: until the first desk's run ended),
// and hands what people send through the service to handle, with the desks
// it names. tell and handle send through the outbox, so that the loop never
// waits for the service. read runs on a goroutine of its own and sends into
// a channel of buffer places; it ends with ctx. At a run's end the
// questions of its still open are closed as ended; with once, serve returns
// then, once the outbox has delivered what it holds or ctx has ended.
func serve[T any](ctx context.Context, joins <-chan ask.Desk, once bool, ob outboxConfig, buffer int,
	read func(context.Context, chan<- T),
	tell func(*outbox, ask.Desk, ask.Update),
	handle func(context.Context, *outbox, *desks, T)) error {
	ctx, cancel := context.WithCancel(ctx)
	out := newOutbox(ctx, ob.channel, ob.log, ob.sleep)
	defer out.wait()
	defer cancel()
	served := newDesks()
	updates := make(chan deskUpdate, buffer)
	inputs := make(chan T, buffer)
	go read(ctx, inputs)
	for {
		select {
		case <-ctx.Done():
			return nil
		case desk, ok := <-joins:
			if !ok {
				joins = nil
				continue
			}
			served.add(desk)
			go follow(ctx, desk, updates)
		case du := <-updates:
			id := du.desk.Session().ID
			if current, ok := served.session(id); !ok || current != du.desk {
				continue // a desk that ended, or was taken over by a newer one
			}
			if du.gone {
				// The watch closed without the run's end: its questions
				// close as ended, without a word.
				out.closeSession(id)
				served.remove(id)
				if once {
					out.wait()
					return nil
				}
				continue
			}
			u := du.update
			if u.Kind == ask.UpdateEnd {
				out.closeSession(id)
			}
			tell(out, du.desk, u)
			if u.Kind == ask.UpdateEnd {
				served.remove(id)
				if once {
					out.wait()
					return nil
				}
			}
		case in := <-inputs:
			handle(ctx, out, served, in)
		}
	}
}

// follow hands desk's updates to updates until its watch closes, then says
// it is gone.
func follow(ctx context.Context, desk ask.Desk, updates chan<- deskUpdate) {
	var watch <-chan ask.Update
	if kw, ok := desk.(ask.KindWatcher); ok {
		watch = kw.WatchKinds(ctx, watchKinds...)
	} else {
		watch = desk.Watch(ctx)
	}
	ended := false
	for u := range watch {
		ended = ended || u.Kind == ask.UpdateEnd
		select {
		case updates <- deskUpdate{desk: desk, update: u}:
		case <-ctx.Done():
			return
		}
	}
	if !ended {
		select {
		case updates <- deskUpdate{desk: desk, gone: true}:
		case <-ctx.Done():
		}
	}
}

// outboxConfig is what serve makes a Serve's outbox with.
type outboxConfig struct {
	channel string
	log     *zap.Logger
	sleep   func(context.Context, time.Duration) bool
}
