package humanloop

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/glyph"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/humanloop/core"
	"github.com/clai-sh/clai/runner/triage"
)

// maxHintOptions is how many options of a question the hint gives a command
// each; clai sessions lists the others.
const maxHintOptions = 10

// answerHints says on stderr, once for each question a headless run opens,
// where a person can answer it: the session, the clai answer command for
// each option (or for a line of text), and the dashboard's address when one
// runs. It tells nothing of a question the run answers itself (the answerer,
// learned answers), as the notifications do not.
type answerHints struct {
	w io.Writer
	// reachable waits until the run is registered and reports whether clai
	// answer can reach it.
	reachable func() bool
	// dashboard is the running dashboard's URL with its token, "" when none
	// runs.
	dashboard func() string
	tri       runTriage

	done sync.WaitGroup
}

// watch follows desk's questions on a goroutine of its own until the run
// ends; it returns at once. It is a runner.WithDesk function.
func (h *answerHints) watch(desk ask.Desk) {
	if h.tri.decide != nil {
		desk = triage.Desk(desk, h.tri.decide, h.tri.wait)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var updates <-chan ask.Update
	if kw, ok := desk.(ask.KindWatcher); ok {
		updates = kw.WatchKinds(ctx, ask.UpdateQuestion, ask.UpdateEnd)
	} else {
		updates = desk.Watch(ctx)
	}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		defer cancel()
		last := ""
		for u := range updates {
			// A question is told once, by its id, however often it is
			// published.
			if u.Kind != ask.UpdateQuestion || u.Question == nil || u.Question.ID == last {
				continue
			}
			last = u.Question.ID
			if h.reachable() {
				_, _ = io.WriteString(h.w, hintText(desk.Session(), *u.Question, dashboardAddress(h.dashboard())))
			}
		}
	}()
}

// wait returns once the hints' goroutine has ended, after the run.
func (h *answerHints) wait() { h.done.Wait() }

// hintText says where question q of session s can be answered, in lines that
// start with "clai: ". What comes from the program (the question, its
// options) has had the run's secrets masked, as everything the run says;
// control characters are left out here.
func hintText(s ask.Session, q ask.Question, dashboard string) string {
	var b strings.Builder
	text := q.Text
	if text == "" {
		text = q.Detail
	}
	fmt.Fprintf(&b, "clai: session %s (%s) waits for an answer to %s: %s\n",
		glyph.OneLine(s.ID, 40), plain(s.Name, 40), glyph.OneLine(q.ID, 20), plain(text, 200))
	cmd := "clai answer " + shellWord(glyph.OneLine(s.ID, 40)) + " --question " + shellWord(glyph.OneLine(q.ID, 20))
	for i, o := range q.Options {
		if i == maxHintOptions {
			fmt.Fprintf(&b, "clai:   … and %d more options (clai sessions lists them)\n", len(q.Options)-maxHintOptions)
			break
		}
		fmt.Fprintf(&b, "clai:   %s --choose %s\n", cmd, shellWord(labelWord(o.Label)))
	}
	if len(q.Options) == 0 || q.Other {
		fmt.Fprintf(&b, "clai:   %s TEXT   (a line of text; or --keys KEY…)\n", cmd)
	}
	if dashboard != "" {
		fmt.Fprintf(&b, "clai:   or on the dashboard: %s\n", dashboard)
	}
	return b.String()
}

// maxLabel is how much of an option's label the hint's command gives:
// --choose takes a prefix only that option has.
const maxLabel = 80

// labelWord is label on one line, cut to maxLabel runes without a mark: a
// prefix of the label that --choose still takes.
func labelWord(label string) string {
	label = strings.TrimSpace(plain(label, utf8.RuneCountInString(label)+1))
	if r := []rune(label); len(r) > maxLabel {
		label = strings.TrimSpace(string(r[:maxLabel]))
	}
	return label
}

// plain is s as oneLine makes it, without the marks that reorder how a
// line reads (bidi overrides, embeddings and isolates).
func plain(s string, max int) string {
	return glyph.OneLine(strings.Map(func(r rune) rune {
		if r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return -1
		}
		return r
	}, s), max)
}

// shellWord is s as one word of a POSIX shell's command line: as it is when
// it holds nothing the shell reads, else in single quotes.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dashboardAddress is the dashboard's URL without its token: a run's stderr
// often ends up in a log (CI), where the token, which lets whoever holds it
// answer every session, must not. A browser that opened the dashboard keeps
// its token; another one opens the link clai dashboard printed.
func dashboardAddress(full string) string {
	if full == "" {
		return ""
	}
	u, err := url.Parse(full)
	if err != nil || u.Host == "" {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// hintsFor returns the hints of a run, or nil when none are said: with a
// terminal (its person answers there), with -q, or when nothing can answer
// from elsewhere (the run does not wait for an answer).
func hintsFor(headless, quiet, remote bool, w io.Writer, served *core.Server, dashboard func() string, tri runTriage) *answerHints {
	if !headless || quiet || !remote {
		return nil
	}
	return &answerHints{w: w, reachable: served.Registered, dashboard: dashboard, tri: tri}
}
