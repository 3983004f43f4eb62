package humanloop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/notify"
)

// learnsPlaybook is the playbook "learns" whose program asks where to
// deploy a build (its id and path differ from run to run), a password, and
// a release name; extra is added to it.
func learnsPlaybook(t *testing.T, run int, extra string) *playbooks.Playbook {
	t.Helper()
	command := prompterCommand(t, "-q", fmt.Sprintf("Deploy build %x to /srv/app%d? [yes/no] ", 0xa1b2c3d0+run, run),
		"-q", "Password: ", "-secret", "2", "-q", "Release name: ")
	return parsePlaybook(t, "version: 1\nname: learns\nspawn:\n  command: %s\ntimeouts:\n  prompt: 120s\n  total: 300s\n%s", command, extra)
}

// answerRun runs pb headless and answers its three questions as a person
// would through the session's socket; it returns the first question as the
// session API showed it.
func answerRun(t *testing.T, iso *isolated, pb *playbooks.Playbook) ask.Question {
	t.Helper()
	r := iso.startRun(t, pb, humanloop.Options{Headless: true, Remote: true})
	s, _ := r.waitQuestion(t, "q1")
	r.answer(t, "q1", "", "yes")
	r.answer(t, "q2", "hunter2-secret", "")
	r.answer(t, "q3", "spring", "")
	r.waitDone(t)
	return *s.Question
}

// A person answers the same questions in two runs from elsewhere; in the
// third, the question (with another build id and path) carries their answer
// as its first suggestion, in the session API; the password typed is
// nowhere in the database.
func TestLearnedAnswerIsSuggested(t *testing.T) {
	iso := isolate(t)
	dir := iso.dir
	suggest := "suggest: {sources: [answers]}\n"
	for run := 1; run <= 2; run++ {
		q := answerRun(t, iso, learnsPlaybook(t, run, suggest))
		if want := run - 1; len(q.Suggestions) != min(want, 1) || want == 1 && q.Suggestions[0].Count != 1 {
			t.Fatalf("run %d: q1's suggestions = %+v, want %d answer(s) learned", run, q.Suggestions, want)
		}
	}
	q := answerRun(t, iso, learnsPlaybook(t, 3, suggest))
	want, _ := json.Marshal([]ask.Suggestion{{Text: "yes", Option: true, Confidence: 1, Count: 2, Source: "answers"}})
	if got, _ := json.Marshal(q.Suggestions); string(got) != string(want) {
		t.Fatalf("the third run's question %q carries %s, want %s", q.Text, got, want)
	}
	var db []byte
	for _, name := range []string{"learned.db", "learned.db-wal"} {
		data, err := os.ReadFile(filepath.Join(dir, "clai", name))
		if err != nil && name == "learned.db" {
			t.Fatal(err)
		}
		db = append(db, data...)
	}
	if bytes.Contains(db, []byte("hunter2-secret")) {
		t.Fatal("the database holds the password typed")
	}
	if !bytes.Contains(db, []byte("spring")) {
		t.Fatal("the database holds no answer at all")
	}
}

// After two runs a person answered, auto_answer with min_count 2 answers the
// third run's question itself, logged and in the report with the channel
// learned; with a danger rule on that question it does not, and a person
// answers.
func TestLearnedAutoAnswer(t *testing.T) {
	iso := isolate(t)
	for run := 1; run <= 2; run++ {
		answerRun(t, iso, learnsPlaybook(t, run, ""))
	}
	auto := "suggest:\n  auto_answer: {min_count: 2, min_confidence: 0.9}\n"
	r := iso.startRun(t, learnsPlaybook(t, 3, auto), humanloop.Options{Headless: true, Remote: true})
	// The password is a person's to give; the release name people gave
	// twice is learned too.
	r.answer(t, "q2", "pw", "")
	rep := r.waitDone(t)
	if got := r.shown.String(); !strings.Contains(got, "got: yes") || !strings.Contains(got, "got: spring") {
		t.Fatalf("the program did not get the learned answers:\n%s", got)
	}
	var channels []string
	for _, q := range rep.Questions {
		if q.Closed != nil {
			channels = append(channels, q.Closed.Channel)
		}
	}
	if got := strings.Join(channels, " "); got != "learned cli learned" {
		t.Fatalf("the report's questions were answered through %q, want learned cli learned", got)
	}
	if l := r.log.String(); !strings.Contains(l, `"event":"learned","decision":"answered","question":"q1"`) {
		t.Fatalf("the log says nothing of the learned answer:\n%s", l)
	}

	danger := auto + "danger:\n  - name: no-prod-deploys\n    match: {regex: 'Deploy build \\S+ to /srv/app4\\?'}\n"
	r = iso.startRun(t, learnsPlaybook(t, 4, danger), humanloop.Options{Headless: true, Remote: true})
	s, _ := r.waitQuestion(t, "q1")
	if s.Question.Reason != ask.Danger || len(s.Question.Suggestions) != 0 {
		t.Fatalf("the question a danger rule handed over: %+v", s.Question)
	}
	r.answer(t, "q1", "", "no")
	// The run stays with people after a hand-over: nothing is answered
	// automatically again.
	r.answer(t, "q2", "pw", "")
	r.answer(t, "q3", "winter", "")
	if _, err := r.wait(t); err != nil {
		t.Fatal(err)
	}
	if got := r.shown.String(); !strings.Contains(got, "got: no") || strings.Contains(got, "got: yes") {
		t.Fatalf("past a danger rule, the program got:\n%s", got)
	}
	if l := r.log.String(); !strings.Contains(l, `"decision":"declined","question":"q1"`) {
		t.Fatalf("the log says nothing of the declined answer:\n%s", l)
	}
}

// With the tasks source, a question that asks for a command carries the
// tasks of the program's folder (its Makefile) as suggestions, which
// auto_answer never types: no person gave them.
func TestTasksAreSuggested(t *testing.T) {
	iso := isolate(t)
	dir := iso.dir
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "Makefile"), []byte("test:\n\tgo test ./...\nbuild: test\n\tgo build\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pb := parsePlaybook(t, `version: 1
name: tasks
spawn:
  command: %s
  dir: %q
timeouts:
  prompt: 120s
suggest:
  sources: [tasks]
  auto_answer: {min_count: 1, min_confidence: 0.1}
`, prompterCommand(t, "-q", "Which command should run next? "), project)
	r := iso.startRun(t, pb, humanloop.Options{Headless: true, Remote: true})
	s, _ := r.waitQuestion(t, "q1")
	if got, want := fmt.Sprint(s.Question.Suggestions), "[{make test false 0 0 tasks} {make build false 0 0 tasks}]"; got != want {
		t.Fatalf("the question carries %s, want %s", got, want)
	}
	r.answer(t, "q1", "make build", "")
	r.waitDone(t)
	if strings.Contains(r.shown.String(), "got: make test") {
		t.Fatalf("a task was typed:\n%s", r.shown.String())
	}
}

// After two runs a person answered, a run with auto_answer, a notification
// target and a Telegram channel: the questions auto_answer takes (the
// deploy, the release name) are told to nobody, neither notified nor sent to
// the chat; the password it declines is both, and a person answers it.
func TestLearnedAutoAnswerTellsNobody(t *testing.T) {
	iso := isolate(t)
	for run := 1; run <= 2; run++ {
		answerRun(t, iso, learnsPlaybook(t, run, ""))
	}
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	toldTo, target := toldDir(t, "question")
	pb := learnsPlaybook(t, 3, "suggest:\n  auto_answer: {min_count: 2, min_confidence: 0.9}\nnotify:\n"+target)
	r := iso.startRun(t, pb, humanloop.Options{Config: parseConfig(t, "%s", telegramConfig(tg, chat)), Headless: true,
		Environ: append(os.Environ(), "CLAI_TEST_TG="+token)})

	tg.Wait(t, "the password's question", func(f *channeltest.Telegram) bool {
		for _, m := range f.Messages() {
			if strings.Contains(m.Text, "Password:") {
				return true
			}
		}
		return false
	})
	r.answer(t, "q2", "pw", "")
	r.waitDone(t)
	if got := r.shown.String(); !strings.Contains(got, "got: yes") || !strings.Contains(got, "got: spring") {
		t.Fatalf("the program did not get the learned answers:\n%s", got)
	}
	if l := r.log.String(); !strings.Contains(l, `"event":"learned","decision":"declined","question":"q2"`) {
		t.Fatalf("the log says nothing of the declined password:\n%s", l)
	}
	var notified []string
	for _, n := range told(t, toldTo) {
		if n.Question == nil {
			t.Fatalf("a notification of no question: %+v", n)
		}
		notified = append(notified, string(n.Event)+" "+n.Question.ID)
	}
	// The password's question q2, and its close once answered; nothing of
	// the questions auto_answer took.
	slices.Sort(notified)
	if !slices.Equal(notified, []string{"closed q2", "question q2"}) {
		t.Errorf("notified %q, want only the password's question q2 and its close", notified)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		var asked []string
		for _, m := range f.Messages() {
			// A question's message: its heading, a blank line, its text.
			if head, rest, ok := strings.Cut(m.Text, "\n\n"); ok && strings.Contains(head, " asks (") {
				text, _, _ := strings.Cut(rest, "\n")
				asked = append(asked, text)
			}
		}
		if len(asked) != 1 || asked[0] != "Password:" {
			t.Errorf("the chat was asked %q, want only the password", asked)
		}
	})
}

// With an answerer that declines every question too, a question
// auto_answer takes is still told to nobody; the password both leave to
// people is notified with the answerer's summary, held back until the
// answerer decided.
func TestLearnedAutoAnswerWithAnAnswerer(t *testing.T) {
	iso := isolate(t)
	for run := 1; run <= 2; run++ {
		answerRun(t, iso, learnsPlaybook(t, run, ""))
	}
	model := scriptModel(t, `{"answer": "no", "confidence": 0, "reason": "unsure", "summary": "the program wants something"}`)
	toldTo, target := toldDir(t, "question")
	pb := learnsPlaybook(t, 3, fmt.Sprintf("suggest:\n  auto_answer: {min_count: 2, min_confidence: 0.9}\nanswerer:\n  command: [%q]\n  summarize: true\nnotify:\n%s", model, target))
	r := iso.startRun(t, pb, humanloop.Options{Headless: true})
	// The person answers once the answerer has left q2 to people and it
	// was told: an answer before would close it untold.
	r.waitTold(t, toldTo, "q2")
	r.answer(t, "q2", "pw", "")
	r.waitDone(t)
	if got := r.shown.String(); !strings.Contains(got, "got: yes") || !strings.Contains(got, "got: spring") {
		t.Fatalf("the program did not get the learned answers:\n%s", got)
	}
	var notified, closed []string
	for _, n := range told(t, toldTo) {
		if n.Question == nil {
			t.Fatalf("a notification of no question: %+v", n)
		}
		if n.Event == notify.EventClosed {
			closed = append(closed, n.Question.ID)
			continue
		}
		notified = append(notified, n.Question.ID+": "+n.Text)
	}
	if len(notified) != 1 || notified[0] != "q2: the program wants something" {
		t.Errorf("notified %q, want only the password's question q2 with the answerer's summary", notified)
	}
	// The questions taken by auto_answer were told to nobody: their close neither.
	if len(closed) > 1 || len(closed) == 1 && closed[0] != "q2" {
		t.Errorf("closes told of %q, want q2's at most", closed)
	}
}
