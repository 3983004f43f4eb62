package learned

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/suggest/gitctx"
)

// fakeDesk is a session in dir whose updates the test sends.
type fakeDesk struct {
	dir     string
	updates chan ask.Update
	answers chan ask.Answer
	screen  ask.Screen
}

func (d *fakeDesk) Session() ask.Session {
	return ask.Session{ID: "s1", Name: "p", Program: []string{"/usr/bin/tool", "-x"}}
}
func (d *fakeDesk) Screen() ask.Screen                      { return d.screen }
func (d *fakeDesk) Watch(context.Context) <-chan ask.Update { return d.updates }
func (d *fakeDesk) Dir() string                             { return d.dir }
func (d *fakeDesk) Answer(_ context.Context, a ask.Answer) (ask.Sent, error) {
	d.answers <- a
	return ask.Sent{Question: a.Question}, nil
}

func load(t *testing.T, src string) *playbooks.Playbook {
	t.Helper()
	pb, findings := playbooks.Parse("p.yaml", []byte("version: 1\nname: p\nspawn: {command: [tool]}\n"+src))
	if pb == nil || len(findings) > 0 {
		t.Fatalf("%v", findings)
	}
	return pb
}

// TestLearnerFilesAnswersUnderTheRepository: a person's answer is stored
// with the program's name and the repo_key of the repository it runs in;
// the next question of the kind carries it.
func TestLearnerFilesAnswersUnderTheRepository(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	path := filepath.Join(t.TempDir(), "learned.db")
	desk := &fakeDesk{dir: repo, updates: make(chan ask.Update, 4)}
	l := New(path, load(t, "suggest: {}\n"))
	l.Watch(desk)
	q := ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Build 3 targets? [y/n]", Options: []ask.Option{{Label: "y"}, {Label: "n"}},
		Closed: &ask.Closed{How: ask.Answered, Channel: ask.ChannelCLI, Sent: `choose "y"`, At: time.Unix(100, 0)}}
	desk.updates <- ask.Update{Kind: ask.UpdateClosed, Question: &q}
	close(desk.updates)
	l.Close()

	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var program, key, template string
	if err := s.db.QueryRowContext(t.Context(), "SELECT program, repo, template FROM answers").Scan(&program, &key, &template); err != nil {
		t.Fatal(err)
	}
	resolved, _ := filepath.EvalSymlinks(repo)
	if want := gitctx.RepoKey("", resolved); program != "tool" || key != want || template != "Build <num> targets? [y/n]" {
		t.Fatalf("stored %q %q %q; want tool, %s", program, key, template, want)
	}

	next := New(path, load(t, "suggest: {}\n"))
	updates := make(chan ask.Update)
	next.Watch(&fakeDesk{dir: repo, updates: updates})
	defer func() { close(updates); next.Close() }()
	// The watch opens the database before the first question.
	if _, err := next.open(); err != nil {
		t.Fatal(err)
	}
	got := next.Suggest(ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Build 12 targets? [y/n]", Options: q.Options})
	if len(got) != 1 || got[0] != (ask.Suggestion{Text: "y", Option: true, Confidence: 1, Count: 1, Source: "answers"}) {
		t.Fatalf("suggestions %+v", got)
	}
	if got := next.Suggest(ask.Question{ID: "q2", Reason: ask.Danger, Text: "Build 12 targets? [y/n]"}); len(got) != 0 {
		t.Fatalf("a hand-over got suggestions %+v", got)
	}
	if got := next.Suggest(ask.Question{ID: "q3", Reason: ask.Prompt, Text: "Password for build 12:"}); len(got) != 0 {
		t.Fatalf("a password prompt got suggestions %+v", got)
	}
}

// TestAutoAnswerGates: auto_answer types the first suggestion only when
// people gave it min_count times, it is theirs, and the answerer's gates
// hold; each decision is taken on the question's update, and Triage tells
// it to the notifications.
func TestAutoAnswerGates(t *testing.T) {
	t.Parallel()
	pb := load(t, "suggest: {auto_answer: {min_count: 2, min_confidence: 0.8}}\ndanger:\n  - {name: wipe, match: 'rm -rf'}\n")
	yn := []ask.Option{{Label: "y"}, {Label: "n"}}
	people := func(text string, count int, share float64) []ask.Suggestion {
		return []ask.Suggestion{{Text: text, Option: text == "y" || text == "n", Confidence: share, Count: count, Source: "answers"}}
	}
	for _, tc := range []struct {
		name    string
		before  []ask.Update
		q       ask.Question
		answers bool
	}{
		{"every gate holds", nil, ask.Question{Text: "Go on? [y/n]", Options: yn, Suggestions: people("y", 2, 1)}, true},
		{"a line where no option", nil, ask.Question{Text: "Name:", Suggestions: people("demo", 3, 0.9)}, true},
		{"too few times", nil, ask.Question{Text: "Go on? [y/n]", Options: yn, Suggestions: people("y", 1, 1)}, false},
		{"too small a share", nil, ask.Question{Text: "Go on? [y/n]", Options: yn, Suggestions: people("y", 5, 0.7)}, false},
		{"not an option", nil, ask.Question{Text: "Go on? [y/n]", Options: yn, Suggestions: people("yes", 5, 1)}, false},
		{"a task", nil, ask.Question{Text: "Command:", Suggestions: []ask.Suggestion{{Text: "make", Source: "tasks"}}}, false},
		{"a hand-over", nil, ask.Question{Reason: ask.Danger, Text: "Go on? [y/n]", Options: yn, Suggestions: people("y", 5, 1)}, false},
		{"a danger rule on the screen", nil, ask.Question{Text: "Go on? [y/n]", Screen: "rm -rf /\nGo on? [y/n]", Options: yn, Suggestions: people("y", 5, 1)}, false},
		{"a danger rule since", []ask.Update{{Kind: ask.UpdateDanger}}, ask.Question{Text: "Go on? [y/n]", Options: yn, Suggestions: people("y", 5, 1)}, false},
		{"a danger rule, then a decision", []ask.Update{{Kind: ask.UpdateDanger}, {Kind: ask.UpdateDecision}}, ask.Question{Text: "Go on? [y/n]", Options: yn, Suggestions: people("y", 5, 1)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			desk := &fakeDesk{dir: t.TempDir(), updates: make(chan ask.Update, 8), answers: make(chan ask.Answer, 1), screen: ask.Screen{Hash: "h"}}
			l := New(filepath.Join(t.TempDir(), "learned.db"), pb)
			l.Watch(desk)
			q := tc.q
			q.ID, q.ScreenHash = "q1", "h"
			if q.Reason == "" {
				q.Reason = ask.Prompt
			}
			for _, u := range tc.before {
				desk.updates <- u
			}
			desk.updates <- ask.Update{Kind: ask.UpdateQuestion, Question: &q}
			close(desk.updates)
			l.Close()
			select {
			case a := <-desk.answers:
				if !tc.answers {
					t.Fatalf("answered %+v", a)
				}
				if a.Channel != ask.ChannelLearned || !strings.HasPrefix(a.By, "learned answer") {
					t.Fatalf("the answer %+v", a)
				}
			default:
				if tc.answers {
					t.Fatal("not answered")
				}
			}
			// A generous deadline only catches a decision never made.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if _, answered := l.Triage(ctx, q); answered != tc.answers || ctx.Err() != nil {
				t.Fatalf("Triage says answered %v (%v), want %v", answered, ctx.Err(), tc.answers)
			}
		})
	}
}

// TestTriageLeavesAtOnce: a hand-over, or any question when auto_answer does
// not answer (none, a dry run), is left to people without waiting for a
// decision.
func TestTriageLeavesAtOnce(t *testing.T) {
	t.Parallel()
	auto := load(t, "suggest: {auto_answer: {min_count: 1}}\n")
	for name, tc := range map[string]struct {
		l      *Learner
		reason ask.Reason
	}{
		"a danger rule's hand-over": {New(filepath.Join(t.TempDir(), "learned.db"), auto), ask.Danger},
		"an idle hand-over":         {New(filepath.Join(t.TempDir(), "learned.db"), auto), ask.Idle},
		"no auto_answer":            {New(filepath.Join(t.TempDir(), "learned.db"), load(t, "suggest: {sources: [answers]}\n")), ask.Prompt},
		"a dry run":                 {New(filepath.Join(t.TempDir(), "learned.db"), auto, WithDryRun(true, nil)), ask.Prompt},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Never decided: a wait would last until this generous deadline.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if summary, answered := tc.l.Triage(ctx, ask.Question{ID: "q1", Reason: tc.reason, Text: "Go on? [y/n]"}); summary != "" || answered || ctx.Err() != nil {
				t.Fatalf("Triage = %q, %v (%v), want left to people at once", summary, answered, ctx.Err())
			}
		})
	}
}

// TestAutoAnswerDryRun: in a dry run, auto_answer types nothing and says
// what it would have typed.
func TestAutoAnswerDryRun(t *testing.T) {
	t.Parallel()
	var notices strings.Builder
	desk := &fakeDesk{dir: t.TempDir(), updates: make(chan ask.Update, 1), answers: make(chan ask.Answer, 1), screen: ask.Screen{Hash: "h"}}
	l := New(filepath.Join(t.TempDir(), "learned.db"), load(t, "suggest: {auto_answer: {min_count: 1}}\n"), WithDryRun(true, &notices))
	l.Watch(desk)
	q := ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Name:", ScreenHash: "h",
		Suggestions: []ask.Suggestion{{Text: "demo", Confidence: 1, Count: 4, Source: "answers"}}}
	desk.updates <- ask.Update{Kind: ask.UpdateQuestion, Question: &q}
	close(desk.updates)
	l.Close()
	if len(desk.answers) != 0 {
		t.Fatalf("a dry run answered %+v", <-desk.answers)
	}
	if want := `clai: dry run: would answer q1 "Name:" with the learned answer "demo" (given 4 times, confidence 1.00)` + "\n"; notices.String() != want {
		t.Fatalf("notices %q, want %q", notices.String(), want)
	}
}

// TestHistorySuggestions: the history source offers the engine's commands
// for the program's folder to a question that asks for a command, after
// people's answers and the tasks, without repeating one; an engine that
// fails or hangs offers nothing, and the question does not wait past its
// bound.
func TestHistorySuggestions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var asked []string
	history := func(ctx context.Context, d string, limit int) ([]HistoryCommand, error) {
		asked = append(asked, fmt.Sprint(d == dir, limit))
		return []HistoryCommand{{Command: "make test", Confidence: 0.8}, {Command: "git push", Confidence: 0.5}, {Command: "go vet", Confidence: 0.1}}, nil
	}
	l := New(filepath.Join(t.TempDir(), "learned.db"), load(t, "suggest: {sources: [history]}\n"), WithHistory(history))
	updates := make(chan ask.Update)
	l.Watch(&fakeDesk{dir: dir, updates: updates})
	defer func() { close(updates); l.Close() }()
	got := l.Suggest(ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Which command should run next?"})
	if fmt.Sprint(got) != "[{make test false 0.8 0 history} {git push false 0.5 0 history} {go vet false 0.1 0 history}]" || fmt.Sprint(asked) != "[true 3]" {
		t.Fatalf("suggestions %v (asked %v)", got, asked)
	}
	if got := l.Suggest(ask.Question{ID: "q2", Reason: ask.Prompt, Text: "Project name:"}); len(got) != 0 {
		t.Fatalf("a question that asks for no command got %v", got)
	}

	hanging := func(ctx context.Context, _ string, _ int) ([]HistoryCommand, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	h := New(filepath.Join(t.TempDir(), "learned.db"), load(t, "suggest: {sources: [history]}\n"), WithHistory(hanging))
	if got := h.Suggest(ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Command to run:"}); len(got) != 0 {
		t.Fatalf("a hanging engine offered %v", got)
	}
	if none := New(filepath.Join(t.TempDir(), "learned.db"), load(t, "suggest: {sources: [history]}\n")); none.Suggesting() {
		t.Fatal("the history source without its engine suggests")
	}
}

// TestStoredHiddenTextIsNeverOffered: an answer stored before text answers
// were held to ask.CheckText (an old database's row with a C1 control, a
// bidi override or a zero-width character) is never offered back as a
// suggestion, so no button or auto_answer types it; a clean one beside it
// still is.
func TestStoredHiddenTextIsNeverOffered(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "learned.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"demo\u009b2J", "demo\u0085", "\u202eomed", "de\u200bmo", "demo", "demo\u009b2J"} {
		a := Answer{Question: "Project name:", Template: Template("Project name:"), Kind: KindText, Text: text,
			Playbook: "p", Program: "tool", Channel: ask.ChannelCLI, At: time.Unix(int64(i), 0)}
		if err := s.Record(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	l := New(path, load(t, "suggest: {auto_answer: {min_count: 1, min_confidence: 0.1}}\n"))
	updates := make(chan ask.Update)
	desk := &fakeDesk{dir: t.TempDir(), updates: updates}
	l.Watch(desk)
	defer func() { close(updates); l.Close() }()
	got := l.Suggest(ask.Question{ID: "q1", Reason: ask.Prompt, Text: "Project name:"})
	if len(got) != 1 || got[0].Text != "demo" {
		t.Fatalf("suggestions %+v, want only the clean \"demo\"", got)
	}
}
