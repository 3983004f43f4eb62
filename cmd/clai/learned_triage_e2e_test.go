package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// TestLearnedAutoAnswerTellsNobody: after two runs a person answered, a run
// with auto_answer, a notification target and a Telegram channel: the
// questions auto_answer takes (the deploy, the release name) are told to
// nobody, neither notified nor sent to the chat; the password it declines
// is both, and a person answers it.
func TestLearnedAutoAnswerTellsNobody(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	for run := 1; run <= 2; run++ {
		e.answerRun(t, learnsPlaybook(t, e.dir, run, ""))
	}

	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	e.telegramChannel(t, tg, token, chat)
	told := filepath.Join(e.dir, "told")
	if err := os.Mkdir(told, 0o700); err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf("suggest:\n  auto_answer: {min_count: 2, min_confidence: 0.9}\nnotify:\n  - command: [sh, -c, 'cat > \"$0/$$.json\"', %q]\n    on: [question]\n", told)
	log := filepath.Join(e.dir, "auto.log")
	_, out, exited := e.start(t, "run", "--log", log, learnsPlaybook(t, e.dir, 3, extra))

	tg.Wait(t, "the password's question", func(f *channeltest.Telegram) bool {
		for _, m := range f.Messages() {
			if strings.Contains(m.Text, "Password:") {
				return true
			}
		}
		return false
	})
	e.waitQuestion(t, "q2", exited, out)
	e.mustAnswer(t, "--", "pw")
	waitRunEnd(t, exited, out)
	if got := out.String(); !strings.Contains(got, "got: yes") || !strings.Contains(got, "got: spring") {
		t.Fatalf("the program did not get the learned answers:\n%s", got)
	}
	if l := string(must(os.ReadFile(log))); !strings.Contains(l, `"event":"learned","decision":"declined","question":"q2"`) {
		t.Fatalf("the log says nothing of the declined password:\n%s", l)
	}

	var notified []string
	files, _ := filepath.Glob(filepath.Join(told, "*.json"))
	for _, f := range files {
		var n struct {
			Event    string `json:"event"`
			Question struct {
				ID string `json:"id"`
			} `json:"question"`
		}
		if err := json.Unmarshal(must(os.ReadFile(f)), &n); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		notified = append(notified, n.Event+" "+n.Question.ID)
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

// TestLearnedAutoAnswerWithAnAnswerer: with an answerer that declines every
// question too, a question auto_answer takes is still told to nobody; the
// password both leave to people is notified with the answerer's summary.
func TestLearnedAutoAnswerWithAnAnswerer(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	for run := 1; run <= 2; run++ {
		e.answerRun(t, learnsPlaybook(t, e.dir, run, ""))
	}
	model := filepath.Join(e.dir, "model")
	reply := `{"answer": "no", "confidence": 0, "reason": "unsure", "summary": "the program wants something"}`
	if err := os.WriteFile(model, []byte("#!/bin/sh\ncat > /dev/null\necho '"+reply+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	told := filepath.Join(e.dir, "told")
	if err := os.Mkdir(told, 0o700); err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf("suggest:\n  auto_answer: {min_count: 2, min_confidence: 0.9}\nanswerer:\n  command: [%q]\n  summarize: true\nnotify:\n  - command: [sh, -c, 'cat > \"$0/$$.json\"', %q]\n    on: [question]\n", model, told)
	_, out, exited := e.start(t, "run", learnsPlaybook(t, e.dir, 3, extra))
	e.waitQuestion(t, "q2", exited, out)
	e.mustAnswer(t, "--", "pw")
	waitRunEnd(t, exited, out)
	if got := out.String(); !strings.Contains(got, "got: yes") || !strings.Contains(got, "got: spring") {
		t.Fatalf("the program did not get the learned answers:\n%s", got)
	}
	var notified, closed []string
	files, _ := filepath.Glob(filepath.Join(told, "*.json"))
	for _, f := range files {
		var n struct {
			Event    string `json:"event"`
			Text     string `json:"text"`
			Question struct {
				ID string `json:"id"`
			} `json:"question"`
		}
		if err := json.Unmarshal(must(os.ReadFile(f)), &n); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n.Event == "closed" {
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
