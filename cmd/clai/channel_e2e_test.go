package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// telegramChannel gives e's runs a user config with one Telegram channel,
// the fake tg, whose token is read from the environment, and chat.
func (e *sessionsEnv) telegramChannel(t *testing.T, tg *channeltest.Telegram, token string, chat int64) {
	t.Helper()
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("channels:\n  - telegram:\n      token: env:CLAI_TEST_TG\n      chats: [%d]\n      base_url: %q\n", chat, tg.URL())
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"), "CLAI_TEST_TG="+token)
}

// TestTelegramAnswersARun: a real clai run over a program reaches a
// question; the fake Telegram gets it with one button per option; a press
// answers it, and the program receives exactly that option; the report
// names the channel, and the token is in no output.
func TestTelegramAnswersARun(t *testing.T) {
	t.Parallel()
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	e := newSessionsEnv(t)
	e.telegramChannel(t, tg, token, chat)
	prompter := testprog.Build(t, "prompter")
	pb := filepath.Join(e.dir, "deploy.yaml")
	if err := os.WriteFile(pb, []byte(fmt.Sprintf("version: 1\nname: deploy\nspawn:\n  command: [%q, \"-q\", \"Deploy where? [staging/prod] \"]\ntimeouts:\n  prompt: 120s\n  total: 300s\n", prompter)), 0o644); err != nil {
		t.Fatal(err)
	}
	log, rep := filepath.Join(e.dir, "run.log"), filepath.Join(e.dir, "run.json")
	_, out, exited := e.start(t, "run", "--log", log, "--report", rep, pb)

	var asked channeltest.Message
	tg.Wait(t, "the question", func(f *channeltest.Telegram) bool {
		for _, m := range f.Messages() {
			if len(m.Buttons) > 0 {
				asked = m
				return true
			}
		}
		return false
	})
	if asked.Chat != chat || !strings.Contains(asked.Text, "Deploy where?") || len(asked.Buttons) != 2 ||
		asked.Buttons[0].Text != "staging" || asked.Buttons[1].Text != "prod" {
		t.Fatalf("the question sent: %+v", asked)
	}
	tg.Press(chat, chat, asked.ID, asked.Buttons[1].Data)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("clai run: %v\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("clai run still runs after the press:\n%s", out)
	}
	if got := out.String(); !strings.Contains(got, "got: prod\r\n") || strings.Contains(got, "got: staging") {
		t.Fatalf("the program got:\n%s", got)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		if a := f.Answers(); len(a) != 1 || !strings.Contains(a[0].Text, "sent") {
			t.Errorf("the press was answered %+v", a)
		}
	})
	report, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), `"channel": "telegram"`) && !strings.Contains(string(report), `"channel":"telegram"`) {
		t.Errorf("the report does not name the channel:\n%s", report)
	}
	logText, _ := os.ReadFile(log)
	for name, text := range map[string]string{"the output": out.String(), "the report": string(report), "the log": string(logText)} {
		if strings.Contains(text, "AAHsecret") {
			t.Errorf("%s holds the bot token", name)
		}
	}
}

// TestChannelWithoutItsTokenRefusesTheRun: a channel whose token is not
// set stops clai run before anything starts, with the place in the config
// file.
func TestChannelWithoutItsTokenRefusesTheRun(t *testing.T) {
	t.Parallel()
	e := newSessionsEnv(t)
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("channels:\n  - telegram:\n      token: env:CLAI_TEST_UNSET\n      chats: [1]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"))
	_, stderr, code := e.clai(t, "run", "--quiet", deployPlaybook(t, e.dir))
	if code != 2 || !strings.Contains(stderr, "config.yaml:2:5: channel: telegram token: secret env:CLAI_TEST_UNSET: the environment variable is not set") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestNtfyAnswersARun: a real clai run publishes its question to a fake
// ntfy server with an action per option; the app's press posts to the
// run's reply topic, and the program receives exactly that option.
func TestNtfyAnswersARun(t *testing.T) {
	t.Parallel()
	const token = "tk_e2esecretntfytoken"
	ntfy := channeltest.NewNtfy(t, token)
	e := newSessionsEnv(t)
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("channels:\n  - ntfy:\n      server: %q\n      topic: alice-questions\n      token: env:CLAI_TEST_NTFY\n", ntfy.URL())
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "config"), "CLAI_TEST_NTFY="+token)
	prompter := testprog.Build(t, "prompter")
	pb := filepath.Join(e.dir, "deploy.yaml")
	if err := os.WriteFile(pb, []byte(fmt.Sprintf("version: 1\nname: deploy\nspawn:\n  command: [%q, \"-q\", \"Deploy where? [staging/prod] \"]\ntimeouts:\n  prompt: 120s\n  total: 300s\n", prompter)), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(e.dir, "run.log")
	_, out, exited := e.start(t, "run", "--log", log, pb)

	var asked channeltest.NtfyMessage
	ntfy.Wait(t, "the question", func(msgs []channeltest.NtfyMessage) bool {
		for _, m := range msgs {
			if len(m.Actions) > 0 {
				asked = m
				return true
			}
		}
		return false
	})
	if asked.Topic != "alice-questions" || len(asked.Actions) != 2 || asked.Actions[1].Label != "prod" {
		t.Fatalf("the question published: %+v", asked)
	}
	if status := ntfy.Press(t, asked.Actions[1]); status != 200 {
		t.Fatalf("the press: status %d", status)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("clai run: %v\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("clai run still runs after the press:\n%s", out)
	}
	if got := out.String(); !strings.Contains(got, "got: prod\r\n") || strings.Contains(got, "got: staging") {
		t.Fatalf("the program got:\n%s", got)
	}
	logText, _ := os.ReadFile(log)
	if !strings.Contains(string(logText), `"channel":"ntfy"`) || strings.Contains(string(logText), token) || strings.Contains(out.String(), token) {
		t.Errorf("the log names no ntfy answer, or holds the token:\n%s", logText)
	}
}

// TestTelegramAsksOnlyWhatTheAnswererLeaves: a real clai run with an
// answerer and a Telegram channel: the answerer takes Continue? [Y/n], which
// never reaches the chat; it leaves the rm -rf hand-over to people, which
// does, with its buttons, and a press answers it.
func TestTelegramAsksOnlyWhatTheAnswererLeaves(t *testing.T) {
	t.Parallel()
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	e := newSessionsEnv(t)
	e.telegramChannel(t, tg, token, chat)
	model := filepath.Join(e.dir, "model")
	if err := os.WriteFile(model, []byte("#!/bin/sh\ncat > /dev/null\necho '"+alwaysYes+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(e.dir, "answerer.yaml")
	// The answerer's playbook, but people have all the time they need.
	playbook := strings.Replace(answererPlaybook, "timeouts: {prompt: 2s}", "timeouts: {prompt: 120s, total: 300s}", 1)
	if err := os.WriteFile(pb, fmt.Appendf(nil, playbook, testprog.Build(t, "prompter"), fmt.Sprintf("  command: [%q]", model)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, exited := e.start(t, "run", pb)

	var asked channeltest.Message
	tg.Wait(t, "a question", func(f *channeltest.Telegram) bool {
		for _, m := range f.Messages() {
			if len(m.Buttons) > 0 {
				asked = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(asked.Text, "rm -rf build") || len(asked.Buttons) != 2 || asked.Buttons[1].Text != "N" {
		t.Fatalf("the first question sent, want the rm -rf hand-over: %+v", asked)
	}
	tg.Press(chat, chat, asked.ID, asked.Buttons[1].Data)
	select {
	case err := <-exited:
		// A person took the danger rule's hand-over: the run ends as the
		// program did, and says who decided.
		if err != nil {
			t.Fatalf("clai run: %v, want exit 0\n%s", err, out)
		}
		if !strings.Contains(out.String(), "decided at the hand-over") {
			t.Fatalf("the final line does not say who decided:\n%s", out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("clai run still runs after the press:\n%s", out)
	}
	if got := out.String(); !strings.Contains(got, "got: Y\r\n") || !strings.Contains(got, "got: N\r\n") {
		t.Fatalf("the program got:\n%s", got)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		for _, m := range append(f.Messages(), f.Edits()...) {
			// The prompt's question (the hand-over's screen shows it too).
			if strings.Contains(m.Text, ", prompt)") {
				t.Errorf("the question the answerer took reached the chat: %q", m.Text)
			}
		}
	})
}
