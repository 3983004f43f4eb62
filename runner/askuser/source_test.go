package askuser_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/askuser"
	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/pty"
)

// transcript is a Claude Code transcript a test writes to, line by line or
// in pieces.
type transcript struct {
	t    *testing.T
	path string
}

func (tr transcript) write(text string) {
	tr.t.Helper()
	f, err := os.OpenFile(tr.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		tr.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		tr.t.Fatal(err)
	}
}

func callLine(id, questions string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"AskUserQuestion","input":{"questions":%s}}]}}`+"\n", id, questions)
}

func resultLine(id string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"answered"}]}}`+"\n", id)
}

const (
	colour  = `{"header":"Colour","question":"Which colour?","multiSelect":false,"options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"calm"}]}`
	licence = `{"header":"Licence","question":"Which licence?","multiSelect":false,"options":[{"label":"MIT","description":"short"},{"label":"Apache-2.0","description":"patents"}]}`
)

// output collects what the program shows, for a test to wait on.
type output struct {
	mu   sync.Mutex
	text strings.Builder
	seen chan struct{}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text.Write(p)
	select {
	case o.seen <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (o *output) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		o.mu.Lock()
		has := strings.Contains(o.text.String(), want)
		o.mu.Unlock()
		if has {
			return
		}
		select {
		case <-o.seen:
		case <-deadline:
			t.Fatalf("the program never showed %q:\n%s", want, o.text.String())
		}
	}
}

// nextUpdate waits for the next update of a kind; the deadline only catches
// a hang.
func nextUpdate(t *testing.T, updates <-chan ask.Update, kind string) *ask.Question {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				t.Fatalf("the run ended before a %s update", kind)
			}
			if u.Kind == kind {
				return u.Question
			}
		case <-deadline:
			t.Fatalf("no %s update", kind)
		}
	}
}

// The source follows a real run's transcript as it is written, garbage and
// pieces of lines included: it asks a call's questions one after another,
// types each answer into the program as Claude Code's dialog takes it (a
// text as the number of "Type something", the text and Enter; an option as
// its number; the review's 1 after the last of several), and withdraws a
// question whose call got its result some other way.
func TestSourceAsksAndWithdrawsARealRunsQuestions(t *testing.T) {
	t.Parallel()
	echo := testprog.Build(t, "echo")
	work, config := t.TempDir(), t.TempDir()
	project := askuser.ProjectDir(config, work)
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	tr := transcript{t: t, path: filepath.Join(project, "5f0c2a4e-1b7d-4c3e-9a8f-0d1e2f3a4b5c.jsonl")}
	tr.write("{\"type\":\"mode\"}\nnot json at all\n")
	// The program shows the lines of Claude Code's dialog that the typist
	// waits for before a text and before the review's 1, then echoes what
	// it is typed.
	marks := `printf '%s\n' '❯ 3. Type something.' '❯ 1. Submit answers'; exec "$0"`
	src := fmt.Sprintf("version: 1\nname: cc\nspawn: {command: [sh, -c, %q, %q], dir: %q}\ntimeouts: {idle: 0s}\n", marks, echo, work)
	pb, findings := playbooks.Parse(filepath.Join(t.TempDir(), "pb.yaml"), []byte(src))
	if pb == nil {
		t.Fatal(findings)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out := &output{seen: make(chan struct{}, 1)}
	desks := make(chan ask.Desk, 1)
	var updates <-chan ask.Update
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		runner.Run(ctx, pb, runner.WithMirror(out),
			runner.WithStarter(func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
				return pty.Start(ctx, pty.Options{Argv: s.Argv, Env: s.Env, Dir: s.Dir, Rows: s.Rows, Cols: s.Cols, Grace: 200 * time.Millisecond})
			}),
			runner.WithDesk(func(d ask.Desk) { updates = d.Watch(ctx); desks <- d }),
			runner.WithQuestions(askuser.Source(askuser.Config{ConfigDir: config, Since: time.Now().Add(-time.Hour),
				Poll: 5 * time.Millisecond, Gap: 5 * time.Millisecond, Shown: time.Millisecond})))
	}()
	d := <-desks
	out.waitFor(t, "> ")

	// One question, answered with a text of the person's own.
	line := callLine("toolu_1", "["+colour+"]")
	tr.write(line[:40])
	tr.write(line[40:])
	q := nextUpdate(t, updates, ask.UpdateQuestion)
	if q.Reason != ask.Tool || q.Header != "Colour" || q.Text != "Which colour?" || q.MultiSelect || !q.Other ||
		len(q.Options) != 2 || q.Options[0] != (ask.Option{Label: "Red", Description: "warm"}) {
		t.Fatalf("question %+v", q)
	}
	green := "green"
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Text: &green, By: "bob", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "3GREEN")
	tr.write(resultLine("toolu_1"))

	// Two questions in one call: the second opens once the first is answered.
	tr.write(callLine("toolu_2", "["+colour+","+licence+"]"))
	q = nextUpdate(t, updates, ask.UpdateQuestion)
	if q.Text != "Which colour?" {
		t.Fatalf("first question %+v", q)
	}
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Choose: "blue"}); err != nil {
		t.Fatal(err)
	}
	q = nextUpdate(t, updates, ask.UpdateQuestion)
	if q.Text != "Which licence?" {
		t.Fatalf("second question %+v", q)
	}
	x := "x"
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Text: &x}); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "23X")
	tr.write(resultLine("toolu_2"))

	// Answered some other way: the result withdraws the question.
	tr.write(callLine("toolu_3", "["+licence+"]"))
	q = nextUpdate(t, updates, ask.UpdateQuestion)
	tr.write(resultLine("toolu_3"))
	closed := nextUpdate(t, updates, ask.UpdateClosed)
	if closed.ID != q.ID || closed.Closed.How != ask.MovedOn {
		t.Fatalf("closed %+v", closed)
	}
	_, err := d.Answer(ctx, ask.Answer{Question: q.ID, Choose: "MIT"})
	if r, ok := err.(*ask.Refusal); !ok || r.Code != ask.RefusedClosed {
		t.Fatalf("answer to a withdrawn question: %v", err)
	}
	cancel()
	<-ended
}

// Claude Code's dialog is the source's while its call waits for a result:
// redrawn after the source's question was answered, as the program goes on
// with it, it opens no prompt question of the run's own, which would reach
// every channel a second time and could type into the dialog.
func TestSourceClaimsTheDialogOfItsCall(t *testing.T) {
	t.Parallel()
	tui := testprog.Build(t, "tui")
	work, config := t.TempDir(), t.TempDir()
	project := askuser.ProjectDir(config, work)
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	tr := transcript{t: t, path: filepath.Join(project, "5f0c2a4e-1b7d-4c3e-9a8f-0d1e2f3a4b5c.jsonl")}
	tr.write(callLine("toolu_1", "["+colour+"]"))
	src := fmt.Sprintf("version: 1\nname: cc\nspawn: {command: [%q, -question, Which colour?, -options, Red|Blue, -ask, \"2\"], dir: %q}\n"+
		"settings: {match: screen, settle: 300ms}\ntimeouts: {idle: 0s}\n", tui, work)
	pb, findings := playbooks.Parse(filepath.Join(t.TempDir(), "pb.yaml"), []byte(src))
	if pb == nil {
		t.Fatal(findings)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	desks := make(chan ask.Desk, 1)
	var updates <-chan ask.Update
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		runner.Run(ctx, pb,
			runner.WithStarter(func(ctx context.Context, s runner.Spawn) (driver.Driver, error) {
				return pty.Start(ctx, pty.Options{Argv: s.Argv, Env: s.Env, Dir: s.Dir, Rows: s.Rows, Cols: s.Cols, Grace: 200 * time.Millisecond})
			}),
			runner.WithDesk(func(d ask.Desk) { updates = d.Watch(ctx); desks <- d }),
			runner.WithQuestions(askuser.Source(askuser.Config{ConfigDir: config, Since: time.Now().Add(-time.Hour),
				Poll: 5 * time.Millisecond, Gap: 5 * time.Millisecond})))
	}()
	d := <-desks
	var seen []ask.Update
	next := func(kind string, ok func(ask.Update) bool) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case u, open := <-updates:
				if !open {
					t.Fatalf("the run ended before a %s update: %+v", kind, seen)
				}
				seen = append(seen, u)
				if u.Kind == kind && ok(u) {
					return
				}
			case <-deadline:
				t.Fatalf("no %s update: %+v", kind, seen)
			}
		}
	}
	var tool *ask.Question
	next(ask.UpdateQuestion, func(u ask.Update) bool { tool = u.Question; return u.Question.Reason == ask.Tool })
	if _, err := d.Answer(ctx, ask.Answer{Question: tool.ID, Keys: []string{"enter"}, By: "bob", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	next(ask.UpdateClosed, func(u ask.Update) bool { return u.Question.ID == tool.ID })
	// The program draws its dialog again, and the run finds it waits there.
	next(ask.UpdateState, func(u ask.Update) bool { return u.State == "prompting" })
	cancel()
	<-ended
	for u := range updates {
		seen = append(seen, u)
	}
	asked := false
	for _, u := range seen {
		switch {
		case u.Kind == ask.UpdateQuestion && u.Question.Reason == ask.Tool:
			asked = true
		case u.Kind == ask.UpdateQuestion && asked:
			t.Errorf("after the source's question, the run opened %+v", u.Question)
		}
	}
}
