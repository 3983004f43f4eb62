//go:build e2e

package dashboard

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clai-sh/clai/runner/ask"
)

// textOf is the text of the first element sel finds now, as the page holds
// it (before the style changes its case); "(none)" when there is none.
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+jsString(sel)+`)?.textContent ?? "(none)"`))
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	return got
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// TestPageTellsHowAndWhenARunEnded: a run that ended at a prompt nobody
// answered reads "timed out · exit 4", not the state it was in, says why it
// ended, and counts "ended … ago" from its end, not from when its state last
// changed.
func TestPageTellsHowAndWhenARunEnded(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	now := time.Now()
	src.session.Since = now.Add(-10 * time.Minute)
	ctx := page(t, src)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`.question.open`)); err != nil {
		t.Fatal(err)
	}
	four := 4
	const why = `nobody answered the prompt "Continue? [y/N]" within timeouts.prompt (10m0s)`
	src.updates <- ask.Update{Kind: ask.UpdateEnd, At: now.Add(-20 * time.Second), State: "prompting", Outcome: "prompting", ExitCode: &four, Reason: why}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`.card.ended .badge.state`)); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `.badge.state`); got != "timed out · exit 4" {
		t.Errorf("the badge reads %q, want %q", got, "timed out · exit 4")
	}
	if got := textOf(t, ctx, `.since`); !regexp.MustCompile(`^ended (\d+s|1m) ago$`).MatchString(got) {
		t.Errorf("the card says %q, want the time since the end (20s ago)", got)
	}
	if got := textOf(t, ctx, `.question`); !strings.Contains(got, "The run has ended: "+why+".") {
		t.Errorf("the card says %q, want why the run ended", got)
	}
}

// sessionSet is a Source of several sessions, each a fakeSource.
type sessionSet []*fakeSource

func (s sessionSet) of(id string) *fakeSource {
	for _, f := range s {
		if f.session.ID == id {
			return f
		}
	}
	return s[0]
}

func (s sessionSet) List(ctx context.Context) ([]ask.Session, error) {
	var all []ask.Session
	for _, f := range s {
		l, _ := f.List(ctx)
		all = append(all, l...)
	}
	return all, nil
}

func (s sessionSet) Screen(ctx context.Context, id string) (ask.Screen, error) {
	return s.of(id).Screen(ctx, id)
}

func (s sessionSet) Events(ctx context.Context, id string, fn func(ask.Update) bool) error {
	return s.of(id).Events(ctx, id, fn)
}

func (s sessionSet) Answer(ctx context.Context, id string, a ask.Answer) (ask.Sent, error) {
	return s.of(id).Answer(ctx, id, a)
}

// newSession is a session of id that started at started, asking when it
// asks, else running.
func newSession(id string, started time.Time, asks bool) *fakeSource {
	f := newFakeSource()
	f.session.ID, f.session.Name, f.session.Started, f.session.Since = id, id, started, started
	f.session.Question.Session = id
	if !asks {
		f.session.State, f.session.Question = "running", nil
	}
	return f
}

// cardOrder is the sessions' cards, top to bottom.
func cardOrder(t *testing.T, ctx context.Context) []string {
	t.Helper()
	order, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("article.card")].map(c => c.dataset.session)`))
	if err != nil {
		t.Fatal(err)
	}
	return order
}

// TestCardsPutTheQuestionsThatWaitFirst: the sessions with a question open
// come first, then those that run, then those that ended, each the most
// recent first; a session that asks moves up.
func TestCardsPutTheQuestionsThatWaitFirst(t *testing.T) {
	t.Parallel()
	now := time.Now()
	set := sessionSet{
		newSession("asks", now.Add(-5*time.Hour), true),
		newSession("ended-last", now.Add(-4*time.Hour), false),
		newSession("old", now.Add(-3*time.Hour), false),
		newSession("ended-first", now.Add(-2*time.Hour), false),
		newSession("new", now.Add(-time.Hour), false),
	}
	ctx := page(t, set)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`article.card[data-session="new"]`)); err != nil {
		t.Fatal(err)
	}
	zero := 0
	set.of("ended-first").updates <- ask.Update{Kind: ask.UpdateEnd, At: now.Add(-20 * time.Minute), State: "done", Outcome: "done", ExitCode: &zero}
	set.of("ended-last").updates <- ask.Update{Kind: ask.UpdateEnd, At: now.Add(-10 * time.Minute), State: "done", Outcome: "done", ExitCode: &zero}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`article.card[data-session="ended-first"] .badge.o-done`), chromedp.WaitVisible(`article.card[data-session="ended-last"] .badge.o-done`)); err != nil {
		t.Fatal(err)
	}
	if got, want := cardOrder(t, ctx), []string{"asks", "new", "old", "ended-last", "ended-first"}; !slices.Equal(got, want) {
		t.Errorf("the cards are in the order %q, want %q", got, want)
	}
	// A question opens on "old": it comes first, its question the most
	// recent. Its listing says so too.
	old := set.of("old")
	q := &ask.Question{ID: "q1", Session: "old", Reason: ask.Prompt, Text: "Deploy? [y/N]", ScreenHash: "h1", AskedAt: now}
	old.mu.Lock()
	old.session.State, old.session.Question = "prompting", q
	old.mu.Unlock()
	old.updates <- ask.Update{Kind: ask.UpdateQuestion, At: now, State: "prompting", Question: q}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`article.card[data-session="old"] .question.open`)); err != nil {
		t.Fatal(err)
	}
	if got, want := cardOrder(t, ctx), []string{"old", "asks", "new", "ended-last", "ended-first"}; !slices.Equal(got, want) {
		t.Errorf("once a question opened, the cards are in the order %q, want %q", got, want)
	}
}

// answered has the question of fakeSource's session (the one it starts
// with) answered by a person through a channel, and its listing say so too.
func answered(f *fakeSource, by, channel, sent string) {
	q := *newFakeSource().session.Question
	f.mu.Lock()
	f.session.State, f.session.Question = "running", nil
	f.mu.Unlock()
	q.Closed = &ask.Closed{At: time.Now(), How: ask.Answered, By: by, Channel: channel, Sent: sent}
	f.updates <- ask.Update{Kind: ask.UpdateClosed, At: time.Now(), State: "running", Question: &q}
}

// TestWhoAnsweredIsNeverCut: the decisions say by whom and through which
// channel an answer came, whole: a long name wraps, it is not cut.
func TestWhoAnsweredIsNeverCut(t *testing.T) {
	t.Parallel()
	src := newFakeSource()
	ctx := page(t, src)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`.question.open`)); err != nil {
		t.Fatal(err)
	}
	const by = "release-manager-of-the-build-farm@ci.example.org"
	answered(src, by, ask.ChannelTelegram, "y")
	const cell = `table.decisions tr.answer td:nth-child(2)`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(cell)); err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(t, ctx, cell), "answer by "+by+" · telegram"; got != want {
		t.Errorf("the cell says %q, want %q", got, want)
	}
	cut, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const td = document.querySelector(`+jsString(cell)+`); return td.scrollWidth > td.clientWidth || getComputedStyle(td).textOverflow === "ellipsis"; })()`))
	if err != nil || cut {
		t.Fatalf("who answered is cut in its cell: %v, %v", cut, err)
	}
}

// typing is a session whose accepted answers typed their text and Enter.
type typing struct{ *fakeSource }

func (s typing) Answer(ctx context.Context, id string, a ask.Answer) (ask.Sent, error) {
	sent, err := s.fakeSource.Answer(ctx, id, a)
	if err == nil {
		sent.Sent = a.Choose + "\r"
	}
	return sent, err
}

// TestTypedControlsAreShownByName: what was sent is shown with Enter as ⏎,
// Tab as ⇥, other controls by their key names and invisible characters
// escaped, in every place the page shows it: an answer's result, the
// recent decisions, the last question's line, a suggestion to send.
func TestTypedControlsAreShownByName(t *testing.T) {
	t.Parallel()
	src := typing{newFakeSource()}
	src.session.Question.Suggestions = []ask.Suggestion{{Text: "v1.2.3\u202e\x1b", Confidence: 1, Count: 2, Source: "answers"}}
	ctx := page(t, src)
	const option = `.question.open button.option[data-label="y"]:not([disabled])`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(option)); err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(t, ctx, `.question.open button.suggestion`), `v1.2.3\u{202e}⟨esc⟩100%`; got != want {
		t.Errorf("the suggestion reads %q, want %q", got, want)
	}
	if err := chromedp.Do(ctx, chromedp.Click(option), chromedp.WaitVisible(`.question .result.ok`)); err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, ctx, `.question .result.ok`); got != "Sent: y⏎" {
		t.Errorf("the result reads %q, want %q", got, "Sent: y⏎")
	}
	src.updates <- ask.Update{Kind: ask.UpdateDecision, At: time.Now(), State: "prompting", Rule: "version", Matched: "Version:\t", Sent: "v1.2.3\r"}
	answered(src.fakeSource, "alice", ask.ChannelDashboard, "v1.2.3\r\t\x1b\x03\u202eok")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`table.decisions tr.decision`), chromedp.WaitVisible(`.closed-line`)); err != nil {
		t.Fatal(err)
	}
	const typed = `v1.2.3⏎⇥⟨esc⟩⟨ctrl-c⟩\u{202e}ok`
	for sel, want := range map[string]string{
		`table.decisions tr.decision td:nth-child(3)`: "Version:⇥",
		`table.decisions tr.decision td:nth-child(4)`: "v1.2.3⏎",
		`table.decisions tr.answer td:nth-child(4)`:   typed,
		`.closed-line`: "Last question “Continue? [y/N]” answered by alice through dashboard: sent " + typed + ".",
	} {
		if got := textOf(t, ctx, sel); got != want {
			t.Errorf("%s reads %q, want %q", sel, got, want)
		}
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]/.test(document.querySelector(".side").textContent)`))
	if err != nil || raw {
		t.Fatalf("the page shows a control character raw: %v, %v", raw, err)
	}
}

// TestARefusalStaysWhenTheProgramMovesOn: an answer from the page that the
// session refuses because the screen moved on is shown refused on the
// card, with its reason, also once another question took its place.
func TestARefusalStaysWhenTheProgramMovesOn(t *testing.T) {
	t.Parallel()
	src := refusing{newFakeSource()}
	ctx := page(t, src)
	const option = `.question.open button.option[data-label="y"]:not([disabled])`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(option), chromedp.Click(option), chromedp.WaitVisible(`.question.open .result.refused`)); err != nil {
		t.Fatal(err)
	}
	q2 := &ask.Question{ID: "q2", Session: "s1", Reason: ask.Prompt, Text: "Sure? [y/N]", ScreenHash: "h2"}
	src.mu.Lock()
	q1 := *src.session.Question
	src.session.Question = q2
	src.screen = ask.Screen{Text: "Sure? [y/N]", Hash: "h2"}
	src.mu.Unlock()
	q1.Closed = &ask.Closed{At: time.Now(), How: ask.MovedOn}
	src.updates <- ask.Update{Kind: ask.UpdateClosed, At: time.Now(), State: "running", Question: &q1}
	src.updates <- ask.Update{Kind: ask.UpdateQuestion, At: time.Now(), State: "prompting", Question: q2}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(`.question.open[data-question="q2"]`)); err != nil {
		t.Fatal(err)
	}
	const want = "Your answer to “Continue? [y/N]”: Refused (stale): the screen changed since the answer was given"
	if got := textOf(t, ctx, `.question.open .result.refused`); got != want {
		t.Errorf("the card says %q, want %q", got, want)
	}
}

// TestThePageHasItsIcon: the page links its icon, and the icon loads as
// an image, at /favicon.svg and at /favicon.ico where browsers look
// without a link.
func TestThePageHasItsIcon(t *testing.T) {
	t.Parallel()
	ctx := page(t, newFakeSource())
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('link[rel="icon"]').getAttribute("href")`))
	if err != nil || href != "/favicon.svg" {
		t.Fatalf("the page links the icon %q (%v), want /favicon.svg", href, err)
	}
	for _, path := range []string{"/favicon.svg", "/favicon.ico"} {
		loaded, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise((done) => { const i = new Image(); i.onload = () => done("loaded"); i.onerror = () => done("failed"); i.src = `+jsString(path)+`; })`, chromedp.EvalAwaitPromise))
		if err != nil || loaded != "loaded" {
			t.Errorf("%s: %s (%v), want an image", path, loaded, err)
		}
	}
}
