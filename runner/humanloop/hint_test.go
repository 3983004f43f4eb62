package humanloop

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/clai-sh/clai/runner/ask"
)

// scriptedDesk is a desk whose watchers get updates, then the run's end.
type scriptedDesk struct {
	session ask.Session
	updates []ask.Update
}

func (d *scriptedDesk) Session() ask.Session { return d.session }
func (d *scriptedDesk) Screen() ask.Screen   { return ask.Screen{} }
func (d *scriptedDesk) Answer(context.Context, ask.Answer) (ask.Sent, error) {
	return ask.Sent{}, &ask.Refusal{Code: ask.RefusedEnded, Reason: "the run has ended"}
}

func (d *scriptedDesk) Watch(context.Context) <-chan ask.Update {
	ch := make(chan ask.Update, len(d.updates)+1)
	for _, u := range d.updates {
		ch <- u
	}
	ch <- ask.Update{Kind: ask.UpdateEnd}
	close(ch)
	return ch
}

// syncWriter is a writer the test reads once the hints are done.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A question is told once, however often it is published or redrawn; the
// next question is told in its turn; other updates tell nothing.
func TestHintsOncePerQuestion(t *testing.T) {
	t.Parallel()
	q1 := &ask.Question{ID: "q1", Text: "Migrate now? [y/N]", Options: []ask.Option{{Label: "y"}, {Label: "N"}}}
	q2 := &ask.Question{ID: "q2", Text: "Name:"}
	desk := &scriptedDesk{session: ask.Session{ID: "abc123", Name: "migrate"}, updates: []ask.Update{
		{Kind: ask.UpdateQuestion, Question: q1},
		{Kind: ask.UpdateScreen},
		{Kind: ask.UpdateQuestion, Question: q1},
		{Kind: ask.UpdateState, State: "prompting"},
		{Kind: ask.UpdateQuestion, Question: q1},
		{Kind: ask.UpdateClosed, Question: q1},
		{Kind: ask.UpdateQuestion, Question: q2},
	}}
	var w syncWriter
	h := &answerHints{w: &w, reachable: func() bool { return true }, dashboard: func() string { return "http://127.0.0.1:4000/?token=s3cret" }}
	h.watch(desk)
	h.wait()
	want := "clai: session abc123 (migrate) waits for an answer to q1: Migrate now? [y/N]\n" +
		"clai:   clai answer abc123 --question q1 --choose y\n" +
		"clai:   clai answer abc123 --question q1 --choose N\n" +
		"clai:   or on the dashboard: http://127.0.0.1:4000/\n" +
		"clai: session abc123 (migrate) waits for an answer to q2: Name:\n" +
		"clai:   clai answer abc123 --question q2 TEXT   (a line of text; or --keys KEY…)\n" +
		"clai:   or on the dashboard: http://127.0.0.1:4000/\n"
	if got := w.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// A run clai answer cannot reach (its registration failed) tells nothing.
func TestHintsNeedAReachableRun(t *testing.T) {
	t.Parallel()
	desk := &scriptedDesk{updates: []ask.Update{{Kind: ask.UpdateQuestion, Question: &ask.Question{ID: "q1", Text: "Name:"}}}}
	var w syncWriter
	h := &answerHints{w: &w, reachable: func() bool { return false }, dashboard: func() string { return "" }}
	h.watch(desk)
	h.wait()
	if got := w.String(); got != "" {
		t.Fatalf("an unreachable run said:\n%s", got)
	}
}

// What comes from the program cannot drive the terminal or the shell the
// command is pasted into: control characters are left out, labels are
// quoted as one shell word, long labels are cut to a prefix --choose takes,
// and only the first options get a command.
func TestHintTextFromHostileQuestion(t *testing.T) {
	t.Parallel()
	var opts []ask.Option
	opts = append(opts, ask.Option{Label: "it's $(rm -rf ~) `x`"}, ask.Option{Label: "-1"}, ask.Option{Label: "a\x1b[2Jb\u009b"},
		ask.Option{Label: strings.Repeat("long ", 30)})
	for i := range 10 {
		opts = append(opts, ask.Option{Label: fmt.Sprintf("opt%d", i)})
	}
	got := hintText(ask.Session{ID: "abc\x1b]0;x\x07", Name: "n\r\nclai: fake"}, ask.Question{ID: "q1", Text: "Pick\x1b[31m one\u202e", Options: opts}, "")
	for _, r := range got {
		if r < ' ' && r != '\n' || r >= 0x7f && r <= 0x9f || r == 0x202e {
			t.Fatalf("the hint holds the control character %U:\n%q", r, got)
		}
	}
	for _, want := range []string{
		`--choose 'it'\''s $(rm -rf ~) ` + "`x`'\n",
		"--choose -1\n",
		"--choose 'a [2Jb'\n",
		"--choose '" + strings.TrimSpace(strings.Repeat("long ", 16)) + "'\n",
		"--choose opt5\n",
		"clai:   … and 4 more options (clai sessions lists them)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the hint lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "opt6") || strings.Count(got, "\n") != 12 {
		t.Errorf("want a head line, 10 options and a line for the rest:\n%s", got)
	}
}

func TestDashboardAddressDropsToken(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:4000/?token=abc":     "http://127.0.0.1:4000/",
		"http://box:4000/?token=abc#q1":        "http://box:4000/",
		"http://user:pw@box:4000/path?token=x": "http://box:4000/path",
		"":                                     "",
		"not a url":                            "",
	} {
		if got := dashboardAddress(in); got != want {
			t.Errorf("dashboardAddress(%q) = %q, want %q", in, got, want)
		}
	}
}
