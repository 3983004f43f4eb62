package runner_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
	"github.com/clai-sh/clai/runner/report"
)

// deskRun runs pb headless with a desk in a goroutine of its own; it returns
// the desk, a watch of it taken before the program's output is read, and the
// report once the run ends.
func deskRun(t *testing.T, ctx context.Context, pb string, args []any, opts ...runner.Option) (ask.Desk, <-chan ask.Update, <-chan *report.Report) {
	t.Helper()
	p := playbook(t, pb, args...)
	desks := make(chan ask.Desk, 1)
	var updates <-chan ask.Update
	reports := make(chan *report.Report, 1)
	go func() {
		rep, err := runner.Run(ctx, p, append([]runner.Option{runner.WithStarter(quickKill), runner.WithDesk(func(d ask.Desk) {
			updates = d.Watch(ctx)
			desks <- d
		})}, opts...)...)
		if err != nil {
			t.Errorf("run: %v", err)
		}
		reports <- rep
	}()
	select {
	case d := <-desks:
		return d, updates, reports
	case rep := <-reports:
		t.Fatalf("the run ended without a desk: %+v", rep)
	}
	return nil, nil, nil
}

// nextQuestion waits for the next question the updates announce; the
// deadline only catches a hang.
func nextQuestion(t *testing.T, updates <-chan ask.Update) *ask.Question {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				t.Fatal("the run ended without a question")
			}
			if u.Kind == ask.UpdateQuestion {
				return u.Question
			}
		case <-deadline:
			t.Fatal("no question")
		}
	}
}

// A real program waits at a prompt nothing answers; its question reaches a
// watcher and the session, and two answers race for it: exactly one is
// typed, the other is refused, and the program gets the one typed. The
// report lists the question with who answered it.
func TestDeskRacesTwoAnswers(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out syncBuffer
	d, updates, reports := deskRun(t, ctx, `
version: 1
name: race
spawn: {command: [%q, -q, "Deploy to production? [y/N] "]}
settings: {settle: 50ms}
timeouts: {prompt: 1m}
`, []any{prompter}, runner.WithRemote(true), runner.WithMirror(&out))
	q := nextQuestion(t, updates)
	if q.Text != "Deploy to production? [y/N]" || len(q.Options) != 2 || q.Session == "" || q.Session != d.Session().ID {
		t.Fatalf("question %+v (session %+v)", q, d.Session())
	}
	if s := d.Session(); s.Question == nil || s.Question.ID != q.ID || s.State != string(engine.Prompting) || s.Name != "race" ||
		s.Started.IsZero() || s.Since.Before(s.Started) || len(s.Program) != 3 || s.PID != os.Getpid() {
		t.Fatalf("session %+v", s)
	}
	if scr := d.Screen(); scr.Hash != q.ScreenHash || !strings.Contains(scr.Text, "Deploy to production?") {
		t.Fatalf("screen %+v, question's hash %s", scr, q.ScreenHash)
	}
	var wg sync.WaitGroup
	results := make([]error, 2)
	for i, by := range []string{"alice", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = d.Answer(ctx, ask.Answer{Question: q.ID, Text: &by, By: by, Channel: ask.ChannelCLI})
		}()
	}
	wg.Wait()
	typed, refused := 0, 0
	for _, err := range results {
		var r *ask.Refusal
		switch {
		case err == nil:
			typed++
		case errors.As(err, &r) && (r.Code == ask.RefusedClosed || r.Code == ask.RefusedStale || r.Code == ask.RefusedEnded):
			// The loser finds the question closed, or, when the winner's
			// answer ended the program first, the run ended: never typed.
			refused++
		default:
			t.Fatalf("answer: %v", err)
		}
	}
	if typed != 1 || refused != 1 {
		t.Fatalf("%d typed, %d refused: %v", typed, refused, results)
	}
	rep := <-reports
	wantOutcome(t, rep, engine.Done, 0)
	got := out.String()
	if strings.Count(got, "got: ") != 1 || strings.Contains(got, "got: alice") == strings.Contains(got, "got: bob") {
		t.Fatalf("the program got:\n%q", got)
	}
	if len(rep.Questions) != 1 || rep.Questions[0].Closed == nil || rep.Questions[0].Closed.How != ask.Answered ||
		rep.Questions[0].Closed.Channel != ask.ChannelCLI || !strings.Contains(got, "got: "+rep.Questions[0].Closed.By) {
		t.Fatalf("the report's questions %+v", rep.Questions)
	}
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Text: new(string)}); err == nil {
		t.Fatal("an answer after the end was typed")
	}
	if s := d.Session(); s.State != string(engine.Done) || s.Question != nil {
		t.Fatalf("session after the end %+v", s)
	}
	late := d.Watch(ctx)
	if u, ok := <-late; !ok || u.Kind != ask.UpdateEnd || u.Outcome != string(engine.Done) {
		t.Fatalf("a watch after the end got %+v", u)
	}
	if _, ok := <-late; ok {
		t.Fatal("a watch after the end is not closed after its UpdateEnd")
	}
}

// Headless, a danger hand-over ends the run at once; with WithRemote it waits
// for an answer from elsewhere, which is typed as the person's decision.
func TestDeskRemoteWaitsAtHandOver(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	pb := `
version: 1
name: remote
spawn: {command: [%q, -q, "rm -rf build? [y/N] "]}
settings: {settle: 50ms}
timeouts: {prompt: 1m}
danger:
  - {name: wipe, match: "rm -rf", action: manual}
`
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rep := run(t, playbook(t, pb, prompter))
	wantOutcome(t, rep, engine.Manual, exitcode.Manual)

	var out syncBuffer
	d, updates, reports := deskRun(t, ctx, pb, []any{prompter}, runner.WithRemote(true), runner.WithMirror(&out))
	q := nextQuestion(t, updates)
	if q.Reason != ask.Danger || q.Text != "rm -rf build? [y/N]" {
		t.Fatalf("question %+v", q)
	}
	sent, err := d.Answer(ctx, ask.Answer{Question: q.ID, Choose: "N", By: "alice", Channel: ask.ChannelCLI})
	if err != nil || sent.Sent != `choose "N"` {
		t.Fatalf("answer: %+v, %v", sent, err)
	}
	rep = <-reports
	// A person took the hand-over: the run ends as the program did, and
	// says who decided.
	wantOutcome(t, rep, engine.Done, exitcode.Done)
	if rep.DecidedBy != "alice through cli" || !strings.Contains(rep.Reason, "alice through cli decided at the hand-over") {
		t.Fatalf("decided by %q: %s", rep.DecidedBy, rep.Reason)
	}
	if !strings.Contains(out.String(), "got: N") {
		t.Fatalf("the program got:\n%q", out.String())
	}
}

// A watcher that never reads loses updates and never slows the run; one that
// reads gets the run's updates in order, UpdateEnd last, and then its channel
// is closed. A text answered where the program reads a password is a secret
// of the run: the report shows it masked.
func TestDeskWatchersAndSecretAnswer(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	const secret = "Tr0ub4dor-and-3"
	var out syncBuffer
	d, updates, reports := deskRun(t, ctx, `
version: 1
name: secret
spawn: {command: [%q, -q, "Password: ", -secret, "1", -q, "Again? [y/N] "]}
settings: {settle: 50ms}
timeouts: {prompt: 1m}
`, []any{prompter}, runner.WithRemote(true), runner.WithMirror(&out))
	_ = d.Watch(ctx) // never read
	q := nextQuestion(t, updates)
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Text: ptr(secret), By: "alice", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	q = nextQuestion(t, updates)
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Choose: "y", By: "alice", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	var last ask.Update
	for u := range updates {
		last = u
	}
	if last.Kind != ask.UpdateEnd || last.ExitCode == nil || *last.ExitCode != 0 {
		t.Fatalf("last update %+v", last)
	}
	rep := <-reports
	wantOutcome(t, rep, engine.Done, 0)
	if !strings.Contains(out.String(), "got: ******") {
		t.Fatalf("the program did not get the password; it showed %q", out.String())
	}
	var b strings.Builder
	if err := rep.Write(&b, "json"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), secret) || len(rep.Questions) != 2 || rep.Questions[0].Closed.Sent == "" {
		t.Fatalf("the report shows the password, or not the answer:\n%s", b.String())
	}
}

func ptr[T any](v T) *T { return &v }

// With screen matching the desk's screen has the screen's rows, plain and
// with their colours, and the hash the question was asked on.
func TestDeskScreenHasColours(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d, updates, reports := deskRun(t, ctx, `
version: 1
name: colours
spawn: {shell: "printf '\e[31mred alert\e[0m\\nProceed? [y/N] '; read x; echo got: $x"}
settings: {match: screen, settle: 50ms}
timeouts: {prompt: 1m}
`, nil, runner.WithRemote(true))
	q := nextQuestion(t, updates)
	scr := d.Screen()
	if scr.Hash != q.ScreenHash || scr.Text != "red alert\nProceed? [y/N]" || !strings.Contains(scr.ANSI, "\x1b[") ||
		!strings.Contains(scr.ANSI, "red alert") || scr.Rows == 0 || scr.Cols == 0 {
		t.Fatalf("screen %+v, question %+v", scr, q)
	}
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Choose: "y", By: "alice", Channel: ask.ChannelDashboard}); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, <-reports, engine.Done, 0)
}

// The person at clai's terminal answers the open question by typing: it
// closes as answered through the terminal, and an answer from elsewhere
// afterwards is refused.
func TestDeskTerminalAnswers(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	person, term := newPersonAtTerminal(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d, updates, reports := deskRun(t, ctx, `
version: 1
name: terminal
spawn: {command: [%q, -q, "Name: "]}
settings: {settle: 50ms}
`, []any{prompter}, runner.WithTerminal(term))
	q := nextQuestion(t, updates)
	person.Types("carol\r")
	for u := range updates {
		if u.Kind != ask.UpdateClosed {
			continue
		}
		if c := u.Question.Closed; u.Question.ID != q.ID || c.How != ask.Answered || c.Channel != ask.ChannelTerminal || c.Sent != "" {
			t.Fatalf("closed %+v", u.Question)
		}
		break
	}
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Text: ptr("dave")}); err == nil {
		t.Fatal("an answer to the question answered at the terminal was typed")
	}
	wantOutcome(t, <-reports, engine.Done, 0)
	person.WaitFor("got: carol", 1)
	if strings.Contains(person.Seen(), "dave") {
		t.Fatalf("the program got the refused answer:\n%q", person.Seen())
	}
}

// A person's answer is recorded as what they typed, not as one of clai's
// answers: no clai-send marker comes before it, so a replay hands it to
// clai as their input.
func TestDeskAnswerIsRecordedAsThePersons(t *testing.T) {
	t.Parallel()
	prompter := testprog.Build(t, "prompter")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var buf syncBuffer
	w, err := cast.NewWriter(&buf, cast.Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	d, updates, reports := deskRun(t, ctx, `
version: 1
name: recorded
spawn: {command: [%q, -q, "Start? ", -q, "Name: "]}
settings: {settle: 50ms, min_send_interval: 0s}
timeouts: {prompt: 1m}
rules:
  - {name: start, match: "Start?", line: "y"}
`, []any{prompter}, runner.WithRecording(w))
	q := nextQuestion(t, updates)
	if _, err := d.Answer(ctx, ask.Answer{Question: q.ID, Text: ptr("bob"), By: "alice", Channel: ask.ChannelCLI}); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, <-reports, engine.Done, 0)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := cast.Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range rec.Events {
		if e.Kind != "o" {
			kinds = append(kinds, e.Kind+":"+e.Data)
		}
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, "m:clai-send i:y\r i:bob\r") {
		t.Fatalf("recorded %q", got)
	}
}

// A watcher that takes some kinds of updates gets only those and the end:
// clai's answers and the screen's changes are never handed to it, while a
// watcher of everything gets them.
func TestDeskWatchKindsTakesOnlyThose(t *testing.T) {
	t.Parallel()
	roundtrip := testprog.Build(t, "roundtrip")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var some <-chan ask.Update
	_, all, reports := deskRun(t, ctx, `
version: 1
name: kinds
spawn: {command: [%q, -n, "20"]}
settings: {min_send_interval: 0s}
rules:
  - {name: code, match: {regex: 'Enter code (?P<code>\d+) \[\d+\]: $'}, line: "{{ match.code }}", limit: 100}
`, []any{roundtrip}, runner.WithDesk(func(d ask.Desk) {
		some = d.(ask.KindWatcher).WatchKinds(ctx, ask.UpdateQuestion, ask.UpdateDanger)
	}))
	kinds := func(updates <-chan ask.Update) map[string]int {
		seen := map[string]int{}
		for u := range updates {
			seen[u.Kind]++
		}
		return seen
	}
	everything, taken := kinds(all), kinds(some)
	wantOutcome(t, <-reports, engine.Done, 0)
	if everything[ask.UpdateDecision] != 20 {
		t.Fatalf("the watcher of everything got %v, want 20 decisions", everything)
	}
	if len(taken) != 1 || taken[ask.UpdateEnd] != 1 {
		t.Fatalf("the watcher of questions and dangers got %v, want the end only", taken)
	}
}

// A watcher of ask.UpdateDecisionAfterDanger gets clai's first decision after
// each danger hit only: in a run with none it gets no decision at all, so
// that clai's answers to the program wake nobody.
func TestDeskDecisionsAfterDangerOnly(t *testing.T) {
	t.Parallel()
	roundtrip, prompter := testprog.Build(t, "roundtrip"), testprog.Build(t, "prompter")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	kinds := func(updates <-chan ask.Update) map[string]int {
		seen := map[string]int{}
		for u := range updates {
			seen[u.Kind]++
		}
		return seen
	}
	watch := func(some *<-chan ask.Update) runner.Option {
		return runner.WithDesk(func(d ask.Desk) {
			*some = d.(ask.KindWatcher).WatchKinds(ctx, ask.UpdateDanger, ask.UpdateDecisionAfterDanger)
		})
	}

	var some <-chan ask.Update
	_, all, reports := deskRun(t, ctx, `
version: 1
name: no-danger
spawn: {command: [%q, -n, "20"]}
settings: {min_send_interval: 0s}
rules:
  - {name: code, match: {regex: 'Enter code (?P<code>\d+) \[\d+\]: $'}, line: "{{ match.code }}", limit: 100}
`, []any{roundtrip}, watch(&some))
	everything, taken := kinds(all), kinds(some)
	wantOutcome(t, <-reports, engine.Done, 0)
	if everything[ask.UpdateDecision] != 20 {
		t.Fatalf("the watcher of everything got %v, want 20 decisions", everything)
	}
	if len(taken) != 1 || taken[ask.UpdateEnd] != 1 {
		t.Fatalf("the watcher of decisions after a danger got %v in a run without one, want the end only", taken)
	}

	_, all, reports = deskRun(t, ctx, `
version: 1
name: danger
spawn: {command: [%q, -q, "Name: ", -q, "rm -rf build? [y/N] ", -q, "Colour: ", -q, "Size: "]}
settings: {min_send_interval: 0s, settle: 50ms}
rules:
  - {name: name, match: "Name: ", line: "bob", limit: 1}
  - {name: colour, match: "Colour: ", line: "red", limit: 1}
  - {name: size, match: "Size: ", line: "big", limit: 1}
danger:
  - {name: wipe, match: "rm -rf", action: deny, line: "N"}
`, []any{prompter}, watch(&some))
	everything, taken = kinds(all), kinds(some)
	wantOutcome(t, <-reports, engine.Done, 0)
	if everything[ask.UpdateDecision] != 4 || everything[ask.UpdateDanger] != 1 {
		t.Fatalf("the watcher of everything got %v, want 4 decisions and a danger", everything)
	}
	if len(taken) != 3 || taken[ask.UpdateDanger] != 1 || taken[ask.UpdateDecision] != 1 || taken[ask.UpdateEnd] != 1 {
		t.Fatalf("the watcher of decisions after a danger got %v, want the danger, one decision and the end", taken)
	}
}
