package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
)

// The bounds of what the dashboard keeps and how often it looks.
const (
	// pollEvery is how often the sessions are listed, to find new ones
	// and those that are gone.
	pollEvery = time.Second
	// screenEvery is how often at most a session's screen is fetched
	// while it changes.
	screenEvery = 100 * time.Millisecond
	// queryTimeout bounds one request to a session.
	queryTimeout = 10 * time.Second
	// maxDecisions is how many recent decisions a session shows.
	maxDecisions = 20
	// maxSessions is how many sessions the page shows; more running
	// sessions are left out.
	maxSessions = 100
	// maxEnded is how many ended sessions the page keeps showing, and
	// keepEnded for how long.
	maxEnded  = 20
	keepEnded = 30 * time.Minute
	// subscriberBuffer is how many messages a page may lag behind before
	// it is dropped (its EventSource then reconnects and starts afresh).
	subscriberBuffer = 256
	// maxSubscribers is how many pages may watch at once.
	maxSubscribers = 32
)

// decision is a recent decision of a session, as the page lists it: one
// of clai's (a rule's answer, a danger rule's hit) or a person's answer.
type decision struct {
	At time.Time `json:"at"`
	// Kind is ask.UpdateDecision, ask.UpdateDanger or answerKind.
	Kind    string `json:"kind"`
	Rule    string `json:"rule,omitempty"`
	Matched string `json:"matched,omitempty"`
	Sent    string `json:"sent,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// By and Channel are who answered a question, and through what.
	By      string `json:"by,omitempty"`
	Channel string `json:"channel,omitempty"`
}

// answerKind is the kind of a person's answer among the decisions: the
// question it answered is Matched.
const answerKind = "answer"

// screenView is a session's screen as the page shows it.
type screenView struct {
	// HTML is the screen rendered (see screenHTML), escaped.
	HTML string `json:"html"`
	Hash string `json:"hash"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

// view is what the page shows of one session.
type view struct {
	Session ask.Session `json:"session"`
	Screen  screenView  `json:"screen"`
	// Decisions are the recent decisions, newest first.
	Decisions []decision `json:"decisions"`
	// LastClosed is the question closed last.
	LastClosed *ask.Question `json:"last_closed,omitempty"`
	Ended      bool          `json:"ended"`
	// EndedAt is when the run ended (or the dashboard saw it gone), which
	// its state's Since is not: that is when the state last changed.
	EndedAt time.Time `json:"ended_at,omitzero"`
	// Outcome is the run's final state (or "gone"), EndReason the run's
	// own words for why it ended.
	Outcome   string `json:"outcome,omitempty"`
	EndReason string `json:"end_reason,omitempty"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	// Error is why the session cannot be reached now.
	Error string `json:"error,omitempty"`

	watching bool
	dirty    chan struct{} // a screen fetch is wanted
	stop     context.CancelFunc
}

// message is one Server-Sent Event for the pages.
type message struct {
	event string
	data  []byte
}

// subscriber is a page that watches.
type subscriber struct {
	ch      chan message
	dropped chan struct{}
}

// hub keeps a view of each session up to date from its updates and sends
// every change to the pages that watch.
type hub struct {
	src  Source
	logf func(string, ...any)

	mu    sync.Mutex
	views map[string]*view
	subs  map[*subscriber]struct{}
	// pageOpens is closed when a page subscribes while none was open, and
	// made anew when the last one leaves: the screens are fetched for pages
	// only.
	pageOpens chan struct{}
	// fetched, when set (by tests), is told of each screen fetched for a
	// view, and of the error of a fetch that failed.
	fetched func(id string, err error)
}

func newHub(src Source, logf func(string, ...any)) *hub {
	return &hub{src: src, logf: logf, views: map[string]*view{}, subs: map[*subscriber]struct{}{}, pageOpens: make(chan struct{})}
}

// run polls the sessions until ctx ends.
func (h *hub) run(ctx context.Context) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		h.poll(ctx)
		select {
		case <-ctx.Done():
			h.mu.Lock()
			for _, v := range h.views {
				if v.stop != nil {
					v.stop()
				}
			}
			h.mu.Unlock()
			return
		case <-t.C:
		}
	}
}

// poll lists the sessions: a new one is watched, one that is gone without
// its end is shown as ended, and ended ones are let go after a while.
func (h *hub) poll(ctx context.Context) {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	list, err := h.src.List(qctx)
	cancel()
	if err != nil {
		h.logf("listing the sessions: %v", err)
		return
	}
	if len(list) > maxSessions {
		list = list[:maxSessions]
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		seen[s.ID] = true
		v, ok := h.views[s.ID]
		if !ok {
			v = &view{Session: s, Decisions: []decision{}}
			h.views[s.ID] = v
			h.publishLocked(v)
		} else if !v.Ended && (v.Session.State != s.State || questionID(v.Session.Question) != questionID(s.Question)) {
			v.Session = s
			h.publishLocked(v)
		}
		if !v.watching && !v.Ended {
			h.watchLocked(ctx, v)
		}
	}
	now := time.Now()
	for id, v := range h.views {
		if !seen[id] && !v.Ended {
			h.goneLocked(v, now)
		}
	}
	h.pruneLocked(now)
}

// questionID is q's id, or "" for none.
func questionID(q *ask.Question) string {
	if q == nil {
		return ""
	}
	return q.ID
}

// pruneLocked lets go of the ended sessions beyond maxEnded, or ended
// longer than keepEnded ago.
func (h *hub) pruneLocked(now time.Time) {
	var ended []*view
	for _, v := range h.views {
		if v.Ended {
			ended = append(ended, v)
		}
	}
	slices.SortFunc(ended, func(a, b *view) int { return b.EndedAt.Compare(a.EndedAt) })
	for i, v := range ended {
		if i >= maxEnded || now.Sub(v.EndedAt) > keepEnded {
			if v.stop != nil {
				v.stop()
			}
			delete(h.views, v.Session.ID)
			h.sendLocked("gone", map[string]string{"id": v.Session.ID})
		}
	}
}

// watchLocked starts following v's updates and fetching its screen.
func (h *hub) watchLocked(ctx context.Context, v *view) {
	wctx, stop := context.WithCancel(ctx)
	v.watching, v.stop = true, stop
	v.dirty = make(chan struct{}, 1)
	v.dirty <- struct{}{}
	id := v.Session.ID
	go h.fetchScreens(wctx, id, v.dirty)
	go func() {
		err := h.src.Events(wctx, id, func(u ask.Update) bool {
			h.apply(id, u)
			return u.Kind != ask.UpdateEnd
		})
		h.mu.Lock()
		defer h.mu.Unlock()
		if v.Ended {
			return // the screen fetcher takes the last screen, then stops
		}
		cancelled := wctx.Err() != nil
		stop()
		v.watching = false
		switch {
		case cancelled:
		case errors.Is(err, ask.ErrEnded):
			// The run ended and took its socket with it before its end
			// reached the stream: not an error, the session is gone.
			h.goneLocked(v, time.Now())
		case err != nil:
			h.logf("session %s: %v", id, err)
			v.Error = err.Error()
			h.publishLocked(v)
		}
	}()
}

// goneLocked shows v as ended without its end having been seen: its run
// is gone.
func (h *hub) goneLocked(v *view, now time.Time) {
	v.Ended, v.EndedAt = true, now
	if v.Outcome == "" {
		v.Outcome = "gone"
	}
	if v.stop != nil {
		v.stop()
	}
	h.publishLocked(v)
}

// fetchScreens fetches session id's screen each time it is wanted, at most
// every screenEvery, while a page is open or the session has a question
// open (a page that opens shows the question with the screen it was asked
// on), until ctx ends or the session ended and its last screen was fetched
// (or no page was open to see it).
func (h *hub) fetchScreens(ctx context.Context, id string, dirty <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-dirty:
		}
		if !h.awaitPage(ctx, id, dirty) {
			return
		}
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		sc, err := h.src.Screen(qctx, id)
		cancel()
		h.mu.Lock()
		v, ok := h.views[id]
		if ok {
			if err == nil {
				v.Screen = screenView{HTML: screenHTML(screenColoured(sc)), Hash: sc.Hash, Rows: sc.Rows, Cols: sc.Cols}
			} else if ctx.Err() == nil && !v.Ended && !errors.Is(err, ask.ErrEnded) {
				// A run that ended takes its screen with it: the page
				// keeps the last one it got.
				h.logf("session %s: %v", id, err)
			}
			h.publishLocked(v) // with the question that waited for it
		}
		last := !ok || v.Ended || errors.Is(err, ask.ErrEnded)
		h.mu.Unlock()
		if ok && h.fetched != nil {
			h.fetched(id, err)
		}
		if last {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(screenEvery):
		}
	}
}

// awaitPage waits until a page is open, unless session id has a question
// open; false when ctx ended first, or the session ended or was let go
// while no page was open. A change to the session (on dirty) has it look
// again.
func (h *hub) awaitPage(ctx context.Context, id string, dirty <-chan struct{}) bool {
	for {
		h.mu.Lock()
		pages, opens := len(h.subs), h.pageOpens
		v, ok := h.views[id]
		asking := ok && !v.Ended && v.Session.Question != nil
		h.mu.Unlock()
		if pages > 0 || asking {
			return true
		}
		if !ok || v.Ended {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-opens:
		case <-dirty:
		}
	}
}

// screenColoured is the screen with its colours, else its text.
func screenColoured(sc ask.Screen) string {
	if sc.ANSI != "" {
		return sc.ANSI
	}
	return sc.Text
}

// apply changes session id's view as u says and sends it to the pages.
func (h *hub) apply(id string, u ask.Update) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.views[id]
	if !ok || v.Ended {
		return
	}
	v.Error = ""
	if u.State != "" && u.State != v.Session.State {
		v.Session.State, v.Session.Since = u.State, u.At
	}
	switch u.Kind {
	case ask.UpdateQuestion:
		v.Session.Question = u.Question
	case ask.UpdateClosed:
		if q := v.Session.Question; q != nil && u.Question != nil && q.ID == u.Question.ID {
			v.Session.Question = nil
		}
		v.LastClosed = u.Question
		if q := u.Question; q != nil && q.Closed != nil && q.Closed.How == ask.Answered {
			v.addDecision(decision{At: q.Closed.At, Kind: answerKind, Matched: q.Text, Sent: q.Closed.Sent, By: q.Closed.By, Channel: q.Closed.Channel})
		}
	case ask.UpdateDecision, ask.UpdateDanger:
		v.addDecision(decision{At: u.At, Kind: u.Kind, Rule: u.Rule, Matched: u.Matched, Sent: u.Sent, Reason: u.Reason})
	case ask.UpdateEnd:
		v.Ended, v.EndedAt = true, u.At
		if v.EndedAt.IsZero() {
			v.EndedAt = time.Now()
		}
		v.Outcome, v.ExitCode, v.EndReason = u.Outcome, u.ExitCode, u.Reason
		if v.Outcome == "" {
			v.Outcome = "ended"
		}
	}
	if u.Kind == ask.UpdateScreen || u.Kind == ask.UpdateQuestion || u.Kind == ask.UpdateEnd {
		select {
		case v.dirty <- struct{}{}:
		default:
		}
	}
	if u.Kind == ask.UpdateQuestion {
		// The page gets the question with the screen it was asked on,
		// which the screen's fetch brings: an answer from the page names
		// the screen it shows.
		return
	}
	h.publishLocked(v)
}

// addDecision adds d first among v's recent decisions.
func (v *view) addDecision(d decision) {
	v.Decisions = append([]decision{d}, v.Decisions[:min(len(v.Decisions), maxDecisions-1)]...)
}

// publishLocked sends v to every page.
func (h *hub) publishLocked(v *view) {
	h.sendLocked("session", v)
}

// sendLocked sends the event with v as its data to every page; a page that
// lags too far is dropped.
func (h *hub) sendLocked(event string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		h.logf("dashboard: %v", err)
		return
	}
	m := message{event: event, data: data}
	for s := range h.subs {
		select {
		case s.ch <- m:
		default:
			h.removeLocked(s)
		}
	}
}

// removeLocked removes the page s; when it was the last, the screens are
// no longer fetched.
func (h *hub) removeLocked(s *subscriber) {
	delete(h.subs, s)
	close(s.dropped)
	if len(h.subs) == 0 {
		h.pageOpens = make(chan struct{})
	}
}

// subscribe adds a page, with every session as it stands now; ok is false
// when maxSubscribers pages watch already.
func (h *hub) subscribe() (s *subscriber, snapshot []message, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) >= maxSubscribers {
		return nil, nil, false
	}
	views := make([]*view, 0, len(h.views))
	for _, v := range h.views {
		views = append(views, v)
	}
	slices.SortFunc(views, func(a, b *view) int { return a.Session.Started.Compare(b.Session.Started) })
	for _, v := range views {
		data, err := json.Marshal(v)
		if err != nil {
			h.logf("dashboard: %v", err)
			continue
		}
		snapshot = append(snapshot, message{event: "session", data: data})
	}
	s = &subscriber{ch: make(chan message, subscriberBuffer), dropped: make(chan struct{})}
	h.subs[s] = struct{}{}
	if len(h.subs) == 1 {
		close(h.pageOpens)
	}
	return s, snapshot, true
}

// unsubscribe removes a page.
func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		h.removeLocked(s)
	}
}
